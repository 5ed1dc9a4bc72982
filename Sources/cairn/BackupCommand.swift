import ArgumentParser
import Cairn
import Foundation

/// `cairn backup STORE DEST`: a consistent, verified copy of a store.
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy a store to a new directory, consistently while other processes save, and verify the copy.",
        discussion: """
            The copy is one snapshot of the store (every save before it began, none after), taken while other
            processes keep saving. It is written to a private file, flushed to disk, moved into place and then
            opened and read from end to end; only then does the command say it is done. A copy that fails any
            step is removed. With --compact the copy leaves out the free pages (it may be much smaller) and
            goes on from the same commit, so its history and tokens stay valid.

            The backup is a store: open it with a ModelConfiguration whose URL is DEST.

            Example:
              cairn backup Library.store Backups/Library-2026-11-27.store --compact
            """ + StoreRefusals.text(status: 1, also: "a destination where anything exists, a symbolic link included (nothing is written through it)"))

    @OptionGroup var store: StoreArgument

    @Argument(help: "Where to write the copy: a path where nothing exists yet.")
    var destination: String

    @Flag(help: "Leave out the free pages (and renumber the rest).")
    var compact = false

    @OptionGroup var options: ReportOptions

    struct Report: Encodable {
        var source: String
        var destination: String
        var bytes: Int
        var compacted: Bool
        var verified: Bool
    }

    func run() throws {
        let inspector = try openStore(store)
        let summary = try inspector.summary()
        let used = (summary.files.pagesUsed - (compact ? summary.files.freePages : 0)) * summary.files.pageSize
        let progress = Progress("Backing up", unit: "bytes", total: used, quiet: options.quiet)
        let destination = URL(fileURLWithPath: self.destination).standardizedFileURL.path
        do {
            try watchingFile({ EnvironmentBackup.partialDataFile(in: destination) }, total: used, progress: progress) {
                try inspector.environment.backup(to: destination, compact: compact)
            }
            progress.finish(succeeded: true)
        } catch {
            progress.finish(succeeded: false)
            printError("cairn: no backup was made: \(describe(error))")
            throw ExitCode(1)
        }
        let bytes = (try? FileManager.default.attributesOfItem(atPath: destination + "/data.mdb")[.size] as? Int) ?? 0
        let output = StandardOutput()
        defer { output.flush() }
        if options.json {
            output.line(
                try jsonText(
                    Report(
                        source: inspector.path, destination: destination, bytes: bytes, compacted: compact,
                        verified: true)))
        } else {
            output.line(
                "Backed up \(inspector.path) to \(destination): \(grouped(bytes)) bytes\(compact ? ", compacted" : ""), verified."
            )
        }
    }
}
