import ArgumentParser
import Cairn
import Foundation

/// `cairn verify STORE`: checks a whole store; the exit status says what it found.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check every page, record, index entry and relationship of a store.",
        discussion: """
            Walks every page of the data file, then reads every row and entry in one snapshot (other processes
            may keep saving): each record passes its checksum and its fields read as the types the store
            records; each uniqueness and index entry passes its checksum and names a row, and each row has one
            entry in each; each relationship edge passes its checksum, names rows that exist and has its inverse
            edge. Each problem is printed with the models it involves.

            Without your app's models, the values of indexed attributes are not compared with their index keys;
            `try container.verify()` in your app checks that too.

            Exit status: 0 when the store is sound, 1 when problems were found, 2 when it cannot be opened.

            Example:
              cairn verify Library.store && echo sound
              cairn verify Library.store --json | jq '.problems[].message'
            """ + StoreRefusals.text(status: 2))

    @OptionGroup var store: StoreArgument
    @OptionGroup var options: ReportOptions

    struct Report: Encodable {
        struct Problem: Encodable {
            var kind: String
            var table: String
            var identifiers: [String]
            var message: String
        }

        var clean: Bool
        /// Entities whose constraints, indexes and relationships were not checked: their
        /// descriptions were recorded by an earlier version (open the store once with the app).
        var unchecked: [String]
        var rowsByEntity: [String: Int]
        var entriesByTable: [String: Int]
        var problems: [Problem]
    }

    func run() throws {
        let inspector = try openStore(store, exitStatus: 2)
        let report: VerificationReport
        do {
            let summary = try inspector.summary()
            let total = summary.entities.reduce(0) { total, entity in
                total + entity.rows + entity.relationships.reduce(0) { $0 + $1.edges }
                    + (entity.uniqueConstraints + entity.indexes).reduce(0) { $0 + $1.entries }
            }
            let progress = Progress("Verifying", unit: "entries", total: total, quiet: options.quiet)
            do {
                report = try inspector.verify { progress.update($0) }
                progress.finish(succeeded: true, done: report.entriesByTable.values.reduce(0, +))
            } catch {
                progress.finish(succeeded: false)
                throw error
            }
        } catch {
            printError("cairn: the store at \(store.store) cannot be read: \(describe(error))")
            throw ExitCode(2)
        }
        let output = StandardOutput()
        if options.json {
            output.line(
                try jsonText(
                    Report(
                        clean: report.isClean, unchecked: inspector.entitiesWithoutNotes,
                        rowsByEntity: report.rowsByEntity, entriesByTable: report.entriesByTable,
                        problems: report.problems.map {
                            Report.Problem(
                                kind: "\($0.kind)", table: $0.table, identifiers: $0.identifiers.map { "\($0)" },
                                message: $0.message)
                        })))
        } else {
            let rows = report.rowsByEntity.values.reduce(0, +)
            let entries = report.entriesByTable.values.reduce(0, +)
            if report.isClean {
                output.line("Sound: \(grouped(rows)) rows and \(grouped(entries)) entries checked, no problems.")
            } else {
                output.line(
                    "\(report.problems.count) problem\(report.problems.count == 1 ? "" : "s") in \(grouped(rows)) rows "
                        + "and \(grouped(entries)) entries:")
                for problem in report.problems {
                    output.line(
                        "  \(problem.kind) in \(problem.table.isEmpty ? "the file" : problem.table)"
                            + (problem.identifiers.isEmpty
                                ? "" : " [\(problem.identifiers.map { "\($0)" }.joined(separator: ", "))]")
                            + ": \(problem.message)")
                }
                output.line(
                    "Restore the store from a backup, or copy out what reads (cairn dump) and save it into a new store."
                )
            }
            if !inspector.entitiesWithoutNotes.isEmpty {
                output.line(
                    "Not checked: the constraints, indexes and relationships of "
                        + inspector.entitiesWithoutNotes.joined(separator: ", ")
                        + ", whose descriptions an earlier version of Cairn recorded. Open the store once with your app "
                        + "to record them.")
            }
        }
        output.flush()
        if !report.isClean { throw ExitCode(1) }
    }
}
