import Foundation
import PropertyBased
import Synchronization
import Testing

@testable import Cairn

/// Schema evolution against a reference: a store is opened at a random increasing sequence of the
/// versions in `SchemaEvolutionModels.swift` (skipping some, so one open runs several stages in a
/// row), with random notes saved at each; after each open the notes read back equal a reference
/// list that went through the same changes (defaults for added attributes, renamed values kept,
/// removed ones gone, missing text filled, duplicate titles merged). Each case is replayable from
/// the seed the failure names.
@Suite struct SchemaEvolutionProperties {
    /// A note as every version can show it; a field the version lacks is `nil`.
    struct Row: Hashable, Comparable, CustomStringConvertible {
        var title: String
        var text: String?
        var priority: Int?
        var tag: String?

        static func < (lhs: Row, rhs: Row) -> Bool { lhs.description < rhs.description }
        var description: String { "\(title)|\(text ?? "-")|\(priority.map(String.init) ?? "-")|\(tag ?? "-")" }
    }

    @Test func migratingThroughRandomVersionsKeepsWhatTheReferenceKeeps() async throws {
        // CAIRN_SCHEMA_EVOLUTION_SEED=<seed> replays the case a failure names.
        if let seed = ProcessInfo.processInfo.environment["CAIRN_SCHEMA_EVOLUTION_SEED"].flatMap(UInt64.init) {
            return try Self.run(seed: seed)
        }
        await propertyCheck(count: PropertyScale.count(12), input: Gen.int(in: 0...Int.max)) { seed in
            try Self.run(seed: UInt64(seed))
        }
    }

    private static func run(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let directory = TemporaryDirectory()
        let url = URL(fileURLWithPath: directory.child("Evolving.store"))
        var reference: [Row] = []
        var version = 1
        var opened = [1]
        while true {
            let context = ModelContext(try EvolvingPlan.container(at: version, url: url))
            let read = try Self.read(version, context).sorted()
            let expected = reference.map { Self.project($0, to: version) }.sorted()
            #expect(read == expected, "seed \(seed), versions \(opened): read \(read), expected \(expected)")
            guard read == expected else { return }
            try Self.insert(version, into: context, random: &random, reference: &reference)
            guard version < 7 else { break }
            let next = Int.random(in: version + 1...7, using: &random)
            for step in version + 1...next { Self.migrate(&reference, to: step) }
            version = next
            opened.append(next)
        }
        let last = ModelContext(try EvolvingPlan.container(at: 7, url: url))
        #expect(try Self.read(7, last).sorted() == reference.sorted(), "seed \(seed), versions \(opened), reopened")
    }

    // MARK: The reference

    /// What a migration to `version` does to the notes.
    private static func migrate(_ rows: inout [Row], to version: Int) {
        switch version {
        case 2: for index in rows.indices { rows[index].priority = 0 }
        case 4: for index in rows.indices { rows[index].priority = nil }
        case 5: for index in rows.indices where rows[index].text == nil { rows[index].text = EvolvingPlan.filler }
        case 7:
            var kept: [String: Row] = [:]
            for row in rows
            where kept[row.title].map({ EvolvingPlan.keeps(row.text, row.tag, over: $0.text, $0.tag) }) ?? true {
                kept[row.title] = row
            }
            rows = Array(kept.values)
        default: break
        }
    }

    /// A reference row as `version` shows it.
    private static func project(_ row: Row, to version: Int) -> Row {
        var row = row
        if !(2...3).contains(version) { row.priority = nil }
        if version < 6 { row.tag = nil }
        return row
    }

    // MARK: The store at each version

    /// Saves up to four random notes in `context` (of `version`) and adds them to `reference`.
    private static func insert(
        _ version: Int, into context: ModelContext, random: inout SeededGenerator, reference: inout [Row]
    ) throws {
        for _ in 0..<Int.random(in: 0...4, using: &random) {
            // Few titles before they are unique, so that duplicates are common; new ones after.
            let title = version < 7 ? ["a", "b", "c", "d"].randomElement(using: &random)! : "n\(reference.count)"
            let word = ["", "tea", "sea", "key"].randomElement(using: &random)!
            let text: String? = version < 5 && Bool.random(using: &random) ? nil : word
            let priority = Int.random(in: 0...3, using: &random)
            let tag = version >= 6 && Bool.random(using: &random) ? ["x", "y"].randomElement(using: &random)! : nil
            switch version {
            case 1: context.insert(EvolvingV1.Note(title: title, body: text))
            case 2:
                let note = EvolvingV2.Note(title: title, body: text)
                note.priority = priority
                context.insert(note)
            case 3:
                let note = EvolvingV3.Note(title: title, text: text)
                note.priority = priority
                context.insert(note)
            case 4: context.insert(EvolvingV4.Note(title: title, text: text))
            case 5: context.insert(EvolvingV5.Note(title: title, text: text ?? word))
            case 6:
                let note = EvolvingV6.Note(title: title, text: text ?? word)
                context.insert(note)
                note.tag = tag.map { EvolvingV6.Tag(name: $0) }
            default:
                let note = EvolvingV7.Note(title: title, text: text ?? word)
                context.insert(note)
                note.tag = tag.map { EvolvingV7.Tag(name: $0) }
            }
            reference.append(
                Row(title: title, text: text, priority: (2...3).contains(version) ? priority : nil, tag: tag))
        }
        try context.save()
    }

    /// The notes `context` (of `version`) reads.
    private static func read(_ version: Int, _ context: ModelContext) throws -> [Row] {
        switch version {
        case 1: try context.fetch(FetchDescriptor<EvolvingV1.Note>()).map { Row(title: $0.title, text: $0.body) }
        case 2:
            try context.fetch(FetchDescriptor<EvolvingV2.Note>()).map {
                Row(title: $0.title, text: $0.body, priority: $0.priority)
            }
        case 3:
            try context.fetch(FetchDescriptor<EvolvingV3.Note>()).map {
                Row(title: $0.title, text: $0.text, priority: $0.priority)
            }
        case 4: try context.fetch(FetchDescriptor<EvolvingV4.Note>()).map { Row(title: $0.title, text: $0.text) }
        case 5: try context.fetch(FetchDescriptor<EvolvingV5.Note>()).map { Row(title: $0.title, text: $0.text) }
        case 6:
            try context.fetch(FetchDescriptor<EvolvingV6.Note>()).map {
                Row(title: $0.title, text: $0.text, tag: $0.tag?.name)
            }
        default:
            try context.fetch(FetchDescriptor<EvolvingV7.Note>()).map {
                Row(title: $0.title, text: $0.text, tag: $0.tag?.name)
            }
        }
    }
}

/// The migration plan up to the version a container opens at, with the stages an app writes:
/// lightweight where the store can follow by itself, custom where rows need values first.
enum EvolvingPlan: SchemaMigrationPlan {
    static let all: [any VersionedSchema.Type] = [
        EvolvingV1.self, EvolvingV2.self, EvolvingV3.self, EvolvingV4.self, EvolvingV5.self, EvolvingV6.self,
        EvolvingV7.self,
    ]
    /// The text a note without one gets when text becomes required.
    static let filler = "(none)"
    /// The version the next container opens at (the test opens one container at a time).
    private static let target = Mutex(7)

    static var schemas: [any VersionedSchema.Type] { Array(all.prefix(target.withLock { $0 })) }
    static var stages: [MigrationStage] { Array(allStages.prefix(target.withLock { $0 } - 1)) }

    static func container(at version: Int, url: URL) throws -> ModelContainer {
        target.withLock { $0 = version }
        return try ModelContainer(
            for: Schema(versionedSchema: all[version - 1]), migrationPlan: EvolvingPlan.self,
            configurations: ModelConfiguration(url: url))
    }

    /// Of two notes with the same title, whether the first is the one to keep.
    static func keeps(_ text: String?, _ tag: String?, over otherText: String?, _ otherTag: String?) -> Bool {
        (text ?? "", tag ?? "") < (otherText ?? "", otherTag ?? "")
    }

    static let allStages: [MigrationStage] = [
        .lightweight(fromVersion: EvolvingV1.self, toVersion: EvolvingV2.self),
        .lightweight(fromVersion: EvolvingV2.self, toVersion: EvolvingV3.self),
        .lightweight(fromVersion: EvolvingV3.self, toVersion: EvolvingV4.self),
        .custom(
            fromVersion: EvolvingV4.self, toVersion: EvolvingV5.self,
            willMigrate: { context in
                for note in try context.fetch(FetchDescriptor<EvolvingV4.Note>()) where note.text == nil {
                    note.text = filler
                }
            }, didMigrate: nil),
        .lightweight(fromVersion: EvolvingV5.self, toVersion: EvolvingV6.self),
        .custom(
            fromVersion: EvolvingV6.self, toVersion: EvolvingV7.self,
            willMigrate: { context in
                var kept: [String: EvolvingV6.Note] = [:]
                for note in try context.fetch(FetchDescriptor<EvolvingV6.Note>()) {
                    guard let other = kept[note.title] else {
                        kept[note.title] = note
                        continue
                    }
                    let keepsNew = keeps(note.text, note.tag?.name, over: other.text, other.tag?.name)
                    context.delete(keepsNew ? other : note)
                    if keepsNew { kept[note.title] = note }
                }
            }, didMigrate: nil),
    ]
}
