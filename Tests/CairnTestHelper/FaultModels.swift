// The models of the fault, damage and disk-full tests, and how a store holding them is read back
// in one canonical line and checked. The helper executable and the test target compile this same
// file (the tests' Support folder links to it), so both sides share one schema and one reading.
import Cairn
import Foundation

/// A shelf: a unique key and a to-many relationship whose inverse is ``FaultVolume/shelf``.
@Model final class FaultShelf {
    @Attribute(.unique) var key: String
    var name: String
    @Relationship(deleteRule: .nullify, inverse: \FaultVolume.shelf) var volumes: [FaultVolume] = []

    init(key: String, name: String) {
        self.key = key
        self.name = name
    }
}

/// A volume: a unique key, an indexed rank, a body of any length, and an optional shelf.
@Model final class FaultVolume {
    #Index<FaultVolume>([\.rank])

    @Attribute(.unique) var key: String
    var rank: Int
    var body: String
    var shelf: FaultShelf?

    init(key: String, rank: Int, body: String) {
        self.key = key
        self.rank = rank
        self.body = body
    }
}

enum FaultContents {
    static func container(_ path: String) throws -> ModelContainer {
        try ModelContainer(
            for: FaultShelf.self, FaultVolume.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: path)))
    }

    /// Everything the store holds as one line: shelves and volumes sorted by key, each with its
    /// fields, a body's length and checksum, and both sides of every relationship.
    static func canonical(_ context: ModelContext) throws -> String {
        let shelves = try context.fetch(FetchDescriptor<FaultShelf>()).sorted { $0.key < $1.key }
        let volumes = try context.fetch(FetchDescriptor<FaultVolume>()).sorted { $0.key < $1.key }
        let shelfLines = shelves.map { shelf in
            "S:\(shelf.key):\(shelf.name):[\(shelf.volumes.map(\.key).sorted().joined(separator: ","))]"
        }
        let volumeLines = volumes.map { volume in
            "V:\(volume.key):\(volume.rank):\(volume.body.utf8.count):\(checksum(volume.body)):\(volume.shelf?.key ?? "-")"
        }
        return (shelfLines + volumeLines).joined(separator: " ")
    }

    /// What is wrong with the store's invariants: a unique key held twice or not found by a
    /// predicate lookup, or a relationship whose inverse disagrees. Empty when all hold.
    static func problems(_ context: ModelContext) throws -> [String] {
        var problems: [String] = []
        let shelves = try context.fetch(FetchDescriptor<FaultShelf>())
        let volumes = try context.fetch(FetchDescriptor<FaultVolume>())
        for (kind, keys) in [("shelf", shelves.map(\.key)), ("volume", volumes.map(\.key))] {
            for (key, count) in Dictionary(keys.map { ($0, 1) }, uniquingKeysWith: +) where count > 1 {
                problems.append("\(kind) key \(key) held \(count) times")
            }
        }
        for shelf in shelves {
            let key = shelf.key
            let found = try context.fetch(FetchDescriptor<FaultShelf>(predicate: #Predicate { $0.key == key }))
            if found.count != 1 || found.first !== shelf {
                problems.append("shelf key \(key): lookup found \(found.count)")
            }
            for volume in shelf.volumes where volume.shelf !== shelf {
                problems.append("shelf \(key) lists volume \(volume.key) whose shelf is \(volume.shelf?.key ?? "none")")
            }
        }
        for volume in volumes {
            let key = volume.key
            let found = try context.fetch(FetchDescriptor<FaultVolume>(predicate: #Predicate { $0.key == key }))
            if found.count != 1 || found.first !== volume {
                problems.append("volume key \(key): lookup found \(found.count)")
            }
            if let shelf = volume.shelf, !shelf.volumes.contains(where: { $0 === volume }) {
                problems.append("volume \(key) names shelf \(shelf.key), which does not list it")
            }
        }
        return problems
    }

    /// FNV-1a of the text's bytes: a body compares by length and checksum, not by its bytes.
    static func checksum(_ text: String) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return String(hash, radix: 16)
    }
}

/// A thrown error as "Type.code message": typed errors name their type and code, anything else
/// is "untyped" with its description.
func describe(_ error: any Error) -> String {
    switch error {
    case let error as StorageError: "StorageError.\(error.code) \(error.message)"
    case let error as SchemaError: "SchemaError.\(error.code) \(error.message)"
    case let error as SaveError: "SaveError.\(error.code) \(error.message)"
    case let error as FetchError: "FetchError.\(error.code) \(error.message)"
    default: "untyped \(String(describing: error).replacingOccurrences(of: "\n", with: " "))"
    }
}
