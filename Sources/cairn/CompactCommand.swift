import ArgumentParser
import Cairn
import Foundation

/// `cairn compact STORE`: gives a store's free pages back to the file system.
struct CompactCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compact",
        abstract: "Shrink a store's data file to the pages in use (no other process may have it open).",
        discussion: """
            A store's data file never shrinks by itself: pages freed by deletes are reused by later saves. This
            writes a compacted, verified copy beside the store and puts it in place of the data file, under the
            lock every process takes to open the store, and only when no process has the store open and nothing
            was saved since the copy was taken. Otherwise the store is left as it was and the command fails
            (exit status 1): quit the apps using the store and run it again, or use `cairn backup --compact`.
            The compacted store keeps its commits' numbering, so history tokens stay valid.

            Example:
              cairn compact Library.store
            """ + StoreRefusals.text(status: 1, also: "a store another process has open (compacting replaces its data file)"))

    @OptionGroup var store: StoreArgument
    @OptionGroup var options: ReportOptions

    struct Report: Encodable {
        var path: String
        var bytesBefore: Int
        var bytesAfter: Int
        var transaction: UInt64
    }

    func run() throws {
        let path = URL(fileURLWithPath: store.store).standardizedFileURL.path
        // The size of the copy to come, read without keeping the store open (compacting needs it closed).
        let used: Int
        do {
            let summary = try openStore(store, path: path).summary()
            used = (summary.files.pagesUsed - summary.files.freePages) * summary.files.pageSize
        }
        let progress = Progress("Compacting", unit: "bytes", total: used, quiet: options.quiet)
        let copy = EnvironmentBackup.partialDataFile(in: StoreCompaction.copyDirectory(for: path))
        let outcome: StoreCompaction.Outcome
        do {
            outcome = try watchingFile({ copy }, total: used, progress: progress) {
                var configuration = StorageConfiguration(path: path)
                configuration.encryption = try store.encryption()
                configuration.sealedTables = StoreLayout.sealedTables
                return try StoreCompaction.compact(configuration)
            }
            progress.finish(succeeded: true)
        } catch {
            progress.finish(succeeded: false)
            printError("cairn: the store was not compacted: \(describe(error))")
            throw ExitCode(1)
        }
        let output = StandardOutput()
        defer { output.flush() }
        if options.json {
            output.line(
                try jsonText(
                    Report(
                        path: path, bytesBefore: outcome.bytesBefore, bytesAfter: outcome.bytesAfter,
                        transaction: outcome.transactionID)))
        } else {
            output.line(
                "Compacted \(path): \(grouped(outcome.bytesBefore)) → \(grouped(outcome.bytesAfter)) bytes, at commit "
                    + "\(outcome.transactionID), verified.")
        }
    }
}
