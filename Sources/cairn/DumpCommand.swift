import ArgumentParser
import Cairn
import Foundation

/// `cairn dump STORE --entity NAME`: every row of an entity, streamed.
struct DumpCommand: ParsableCommand {
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case json, csv
    }

    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Print the rows of an entity as JSON Lines or CSV, with their identifiers and relationships.",
        discussion: """
            Streams the rows of one entity (and of the entities that inherit from it) in row order, from one
            snapshot, without your app's models: memory stays flat however many rows there are. Each row has its
            identifier (`id`, as "Book/42"), every attribute the store describes, and each relationship as the
            identifiers of its targets (in their stored order; a to-one relationship as one identifier or null).

            json (the default) writes one JSON object per line; csv writes a header line, then one line per row,
            a to-many relationship's identifiers separated by spaces. Dates are ISO 8601 (UTC), data is base64.
            --where keeps the rows whose attribute, written as text, equals the value (null for none).

            A row that cannot be read is reported on standard error and skipped, and the exit status is then 1.

            Example:
              cairn dump Library.store --entity Book > books.jsonl
              cairn dump Library.store --entity Book --format csv --where genre=poetry
            """ + StoreRefusals.text(status: 1))

    @OptionGroup var store: StoreArgument

    @Option(help: "The entity whose rows to print.")
    var entity: String

    @Option(help: "json (JSON Lines) or csv.")
    var format: Format = .json

    @Option(name: .customLong("where"), help: "Only rows whose attribute has this value, as FIELD=VALUE.")
    var filter: String?

    @Flag(name: .shortAndLong, help: "Show no progress on standard error.")
    var quiet = false

    func validate() throws {
        if let filter, !filter.contains("=") {
            throw ValidationError("--where takes FIELD=VALUE, as in --where title=Dune.")
        }
    }

    func run() throws {
        let inspector = try openStore(store)
        let condition = filter.map { filter in
            let parts = filter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (name: String(parts[0]), value: String(parts[1]))
        }
        let columns: (attributes: [String], relationships: [String])
        do {
            columns = try inspector.columns(of: entity)
        } catch {
            throw ValidationError(describe(error))
        }
        let total = try inspector.summary().entities.first { $0.name == entity }?.rows
        let output = StandardOutput()
        if format == .csv {
            output.line((["id"] + columns.attributes + columns.relationships).map(Self.csvField).joined(separator: ","))
        }
        let progress = Progress("Dumping \(entity)", unit: "rows", total: total, quiet: quiet)
        // Reported after the progress display ends (on a terminal it redraws over other lines).
        var damaged: [String] = []
        var written = 0
        do {
            try inspector.rows(of: entity, where: condition, progress: { progress.update($0) }) { row in
                output.line(format == .json ? Self.json(row) : Self.csv(row))
                written += 1
                return true
            } damaged: { id, reason in
                damaged.append("cairn: \(id) cannot be read and is left out: \(reason)")
            }
            progress.finish(succeeded: true, done: written)
        } catch {
            progress.finish(succeeded: false)
            output.flush()
            damaged.forEach(printError)
            printError("cairn: the dump stopped: \(describe(error))")
            throw ExitCode(1)
        }
        output.flush()
        damaged.forEach(printError)
        if !inspector.knowsDescendants(of: entity) {
            printError(
                "cairn: \(entity)'s description was recorded by an earlier version of Cairn, so the rows of the "
                    + "entities that inherit from it are not included. Open the store once with your app to record it.")
        }
        if !damaged.isEmpty {
            printError(
                "cairn: \(damaged.count) row\(damaged.count == 1 ? "" : "s") could not be read; run cairn verify for "
                    + "details.")
            throw ExitCode(1)
        }
    }

    /// One row as a JSON object: `id`, the attributes, then the relationships.
    static func json(_ row: InspectedRow) -> String {
        var parts = ["\"id\":" + StoredValue.quoted("\(row.id)")]
        for (name, value) in row.values { parts.append(StoredValue.quoted(name) + ":" + (value?.json ?? "null")) }
        for (name, isToMany, targets) in row.relationships {
            let ids = targets.map { StoredValue.quoted("\($0)") }
            parts.append(
                StoredValue.quoted(name) + ":"
                    + (isToMany ? "[" + ids.joined(separator: ",") + "]" : ids.first ?? "null"))
        }
        return "{" + parts.joined(separator: ",") + "}"
    }

    /// One row as a CSV line (RFC 4180: fields with commas, quotes or line breaks are quoted).
    static func csv(_ row: InspectedRow) -> String {
        let fields =
            ["\(row.id)"] + row.values.map { $0.value?.text ?? "" }
            + row.relationships.map { $0.targets.map { "\($0)" }.joined(separator: " ") }
        return fields.map(csvField).joined(separator: ",")
    }

    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
