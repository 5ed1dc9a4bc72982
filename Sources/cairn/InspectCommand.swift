import ArgumentParser
import Cairn
import Foundation

/// `cairn inspect STORE`: what a store holds and how its files stand.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show a store's format, schema, entities with their counts, files, history and readers.",
        discussion: """
            Reads the store without your app's models, read-only, while other processes may keep using it.
            For each entity: its attributes (with their stored types), relationships (destination, inverse,
            delete rule, edges), uniqueness constraints and indexes (with their entries), full-text indexes
            (with their blocks and bytes) and its rows. Then the data file's and the map's sizes, pages used and free (free pages are reused by later saves;
            `cairn compact` gives them back), the history's range, and the processes reading the store.

            Example:
              cairn inspect ~/Library/Application\\ Support/default.store
              cairn inspect Library.store --json | jq '.entities[] | {name, rows}'
            """ + StoreRefusals.text(status: 1))

    @OptionGroup var store: StoreArgument
    @OptionGroup var options: ReportOptions

    func run() throws {
        let inspector = try openStore(store)
        let summary = try inspector.summary()
        let output = StandardOutput()
        defer { output.flush() }
        if options.json {
            output.line(try jsonText(summary))
            return
        }
        output.line("Store \(summary.path)")
        output.line(
            "  format \(summary.formatVersion), identifier \(summary.storeIdentifier), schema version "
                + (summary.schemaVersion ?? "not recorded") + ", last commit \(summary.lastCommit)")
        let files = summary.files
        output.line(
            "  data file \(grouped(files.dataFileBytes)) bytes, map \(grouped(files.mapBytes)) bytes, pages of "
                + "\(files.pageSize) bytes: \(grouped(files.pagesUsed)) used, \(grouped(files.freePages)) free")
        let history = summary.history
        output.line(
            "  history: \(grouped(history.transactions)) transactions"
                + (history.first.map { first in " (\(first) … \(history.last ?? first))" } ?? "")
                + (history.floor > 0 ? ", deleted before \(history.floor)" : ""))
        output.line(
            "  readers: "
                + (summary.readers.isEmpty
                    ? "none"
                    : summary.readers.map {
                        "process \($0.processIdentifier)" + ($0.transaction.map { " at commit \($0)" } ?? " (idle)")
                    }
                    .joined(separator: ", ")))
        for entity in summary.entities {
            output.line("")
            output.line(
                "\(entity.name)" + (entity.superentity.map { " : \($0)" } ?? "") + " — \(grouped(entity.rows)) rows")
            for attribute in entity.attributes {
                output.line("  \(attribute.name): \(attribute.type) (field \(attribute.tag))")
            }
            for relationship in entity.relationships {
                output.line(
                    "  \(relationship.name) → \(relationship.toMany ? "[\(relationship.destination)]" : relationship.destination)"
                        + (relationship.inverse.map { ", inverse \($0)" } ?? "")
                        + (relationship.deleteRule.map { ", \($0)" } ?? "") + ", \(grouped(relationship.edges)) edges")
            }
            for unique in entity.uniqueConstraints {
                output.line("  unique (\(Self.keyed(unique))): \(grouped(unique.entries)) entries")
            }
            for index in entity.indexes {
                output.line("  index (\(Self.keyed(index))): \(grouped(index.entries)) entries")
            }
            for text in entity.textIndexes {
                output.line(
                    "  full-text index (\(text.attribute)\(text.hashed ? ", keyed hashes" : "")): "
                        + "\(grouped(text.blocks)) blocks, \(grouped(text.bytes)) bytes")
            }
            for vector in entity.vectorIndexes {
                output.line(
                    "  vector index (\(vector.attribute)): \(grouped(vector.vectors)) vectors, "
                        + "\(grouped(vector.bytes)) bytes")
            }
        }
    }

    /// A key table's attributes, a hashed one marked (a sensitive attribute of an encrypted store).
    private static func keyed(_ table: StoreSummary.KeyedTable) -> String {
        table.attributes.map { table.hashed.contains($0) ? "\($0) (keyed hash)" : $0 }.joined(separator: ", ")
    }
}
