import ArgumentParser
import Cairn
import Foundation

/// `cairn history STORE [--since TOKEN]`: the store's transactions and their changes.
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List a store's transactions with their changes, oldest first.",
        discussion: """
            Each transaction with its token (its commit number), time, author (ModelContext.author), the process
            that saved it, and what it changed: the identifiers inserted, updated (with the attributes and
            relationships that changed) and deleted, per entity. --since lists only the transactions after a
            token: a number, or a token as your app encodes a DefaultHistoryToken in JSON ({"<store>": 41}).

            Example:
              cairn history Library.store --since 41
              cairn history Library.store --json | jq 'select(.author == "importer")'
            """ + StoreRefusals.text(status: 1))

    @OptionGroup var store: StoreArgument

    @Option(help: "Only the transactions after this token.")
    var since: String?

    @Flag(help: "Print one JSON object per transaction (JSON Lines).")
    var json = false

    func run() throws {
        let inspector = try openStore(store)
        let token = try since.map { try Self.token($0, store: inspector.storeIdentifier) }
        let output = StandardOutput()
        defer { output.flush() }
        var count = 0
        do {
            try inspector.transactions(after: token) { transaction in
                count += 1
                if json {
                    output.line(try jsonText(transaction, pretty: false))
                } else {
                    write(transaction, to: output)
                }
                return true
            }
        } catch {
            output.flush()
            printError("cairn: \(describe(error))")
            throw ExitCode(1)
        }
        if !json && count == 0 { output.line(token.map { "No transactions after \($0)." } ?? "No transactions.") }
    }

    private func write(_ transaction: InspectedTransaction, to output: StandardOutput) {
        guard !transaction.damaged else {
            output.line("Transaction \(transaction.token): damaged, cannot be read (delete it with deleteHistory).")
            return
        }
        var heading = "Transaction \(transaction.token)"
        if let timestamp = transaction.timestamp {
            heading += "  " + timestamp.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        }
        if let author = transaction.author { heading += "  author \(author)" }
        if let process = transaction.processIdentifier {
            heading += "  process \(process)" + (transaction.bundleIdentifier.map { " (\($0))" } ?? "")
        }
        output.line(heading)
        for change in transaction.changes {
            output.line(
                "  \(change.kind) \(change.ids.joined(separator: ", "))"
                    + (change.fields.map { " [\($0.joined(separator: ", "))]" } ?? ""))
        }
    }

    /// A token given as a number or as a `DefaultHistoryToken`'s JSON.
    static func token(_ text: String, store: String) throws -> UInt64 {
        if let number = UInt64(text) { return number }
        if let data = text.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], object.count == 1,
            let (key, value) = object.first, let number = (value as? NSNumber)?.uint64Value
        {
            guard key == store else {
                throw ValidationError("The token is of store \(key); this store is \(store).")
            }
            return number
        }
        throw ValidationError("--since takes a transaction's token: a number, or a token's JSON ({\"\(store)\": 41}).")
    }
}
