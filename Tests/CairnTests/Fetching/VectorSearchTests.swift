import CairnStorage
import Foundation
import Testing

@testable import Cairn

@Model final class VectorPhoto {
    #Unique<VectorPhoto>([\.name])
    var name: String
    var album: Int
    @Attribute(.vector(dimensions: 8, metric: .cosine)) var embedding: [Float]
    @Attribute(.vector(dimensions: 3, metric: .euclidean)) var position: [Float]?

    init(_ name: String, album: Int = 0, embedding: [Float], position: [Float]? = nil) {
        (self.name, self.album, self.embedding, self.position) = (name, album, embedding, position)
    }
}

/// Vectors near a few random centres in `dimensions` dimensions, as embeddings of related
/// things are: the shape the approximate index is for.
struct ClusteredVectors {
    var random: SeededGenerator
    let centres: [[Float]]

    init(seed: UInt64, dimensions: Int, clusters: Int) {
        random = SeededGenerator(seed: seed)
        var random = random
        centres = (0..<clusters).map { _ in (0..<dimensions).map { _ in Float.random(in: -1...1, using: &random) } }
        self.random = random
    }

    mutating func next(spread: Float = 0.35) -> [Float] {
        let centre = centres.randomElement(using: &random)!
        return centre.map { $0 + Float.random(in: -spread...spread, using: &random) }
    }
}

/// The brute-force answers the store's searches are checked against.
enum VectorReference {
    static func cosine(_ a: [Float], _ b: [Float]) -> Double {
        let dot = zip(a, b).reduce(0.0) { $0 + Double($1.0) * Double($1.1) }
        let lengths = (a.reduce(0.0) { $0 + Double($1 * $1) } * b.reduce(0.0) { $0 + Double($1 * $1) }).squareRoot()
        return lengths == 0 ? 1 : 1 - dot / lengths
    }

    static func euclidean(_ a: [Float], _ b: [Float]) -> Double {
        zip(a, b).reduce(0.0) { $0 + (Double($1.0) - Double($1.1)) * (Double($1.0) - Double($1.1)) }.squareRoot()
    }
}

@Suite struct VectorSearchTests {
    static func store(encryption: ModelConfiguration.Encryption? = nil) throws -> (ModelContainer, String) {
        let path = TemporaryDirectory().child("Vectors.store")
        let container = try ModelContainer(
            for: Schema([VectorPhoto.self]),
            configurations: ModelConfiguration(url: URL(fileURLWithPath: path), encryption: encryption))
        return (container, path)
    }

    static func names(_ results: [SimilarityResult<VectorPhoto>]) -> [String] { results.map(\.model.name) }

    @Test func theNearestComeFirstByEitherMetricWithTheirDistances() throws {
        let (container, _) = try Self.store()
        let context = ModelContext(container)
        let photos = [
            VectorPhoto("east", embedding: [1, 0, 0, 0, 0, 0, 0, 0], position: [0, 0, 0]),
            VectorPhoto("north-east", embedding: [1, 1, 0, 0, 0, 0, 0, 0], position: [3, 4, 0]),
            VectorPhoto("north", embedding: [0, 5, 0, 0, 0, 0, 0, 0], position: [1, 1, 1]),
            VectorPhoto("west", embedding: [-2, 0, 0, 0, 0, 0, 0, 0], position: nil),
        ]
        for photo in photos { context.insert(photo) }
        try context.save()
        let reader = ModelContext(container)
        for isExact in [true, false] {
            let byAngle = try reader.search(
                SimilarityDescriptor<VectorPhoto>(
                    nearest: [2, 0.1, 0, 0, 0, 0, 0, 0], in: \.embedding, fetchLimit: 4, isExact: isExact))
            #expect(Self.names(byAngle) == ["east", "north-east", "north", "west"])
            #expect(
                abs(
                    byAngle[1].distance - VectorReference.cosine([1, 1, 0, 0, 0, 0, 0, 0], [2, 0.1, 0, 0, 0, 0, 0, 0]))
                    < 1e-6)
            #expect(abs(byAngle[3].distance - 2 + 0.00124) < 1e-3)
            let byPlace = try reader.search(
                SimilarityDescriptor<VectorPhoto>(nearest: [3, 3, 0], in: \.position, fetchLimit: 2, isExact: isExact))
            #expect(Self.names(byPlace) == ["north-east", "north"])
            #expect(abs(byPlace[0].distance - 1) < 1e-6)
            #expect(abs(byPlace[1].distance - 3) < 1e-6)
        }
    }

    /// 2,000 clustered vectors: the approximate search finds at least 95% of the exact ten
    /// nearest, over 30 queries, with and without a predicate; with an effort as large as the
    /// collection it finds them all.
    @Test func theApproximateSearchFindsNearlyAllOfTheExactNearest() throws {
        let (container, _) = try Self.store()
        let context = ModelContext(container)
        var vectors = ClusteredVectors(seed: 7, dimensions: 8, clusters: 12)
        for number in 0..<2_000 {
            context.insert(VectorPhoto("p\(number)", album: number % 4, embedding: vectors.next()))
            if number % 1_000 == 999 { try context.save() }
        }
        try context.save()
        let reader = ModelContext(container)
        var (found, wanted) = (0, 0)
        for query in 0..<30 {
            let vector = vectors.next()
            let predicate = query % 2 == 0 ? nil : #Predicate<VectorPhoto> { $0.album == 1 }
            let exact = try reader.search(
                SimilarityDescriptor<VectorPhoto>(
                    nearest: vector, in: \.embedding, predicate: predicate, fetchLimit: 10, isExact: true))
            let approximate = try reader.search(
                SimilarityDescriptor<VectorPhoto>(
                    nearest: vector, in: \.embedding, predicate: predicate, fetchLimit: 10))
            #expect(exact.count == 10 && approximate.count == 10)
            #expect(approximate.allSatisfy { predicate == nil || $0.model.album == 1 })
            #expect(approximate.map(\.distance) == approximate.map(\.distance).sorted())
            found += Set(Self.names(approximate)).intersection(Self.names(exact)).count
            wanted += exact.count
            let thorough = try reader.search(
                SimilarityDescriptor<VectorPhoto>(
                    nearest: vector, in: \.embedding, predicate: predicate, fetchLimit: 10, searchEffort: 2_000))
            #expect(Self.names(thorough) == Self.names(exact))
        }
        #expect(Double(found) / Double(wanted) >= 0.95, "recall \(Double(found) / Double(wanted))")
    }

    /// Changed vectors are found where they now are, deleted models never, and after most of the
    /// collection is deleted the graph still reaches what is left.
    @Test func changesAndDeletesKeepTheIndexCurrent() throws {
        let (container, _) = try Self.store()
        let context = ModelContext(container)
        var vectors = ClusteredVectors(seed: 11, dimensions: 8, clusters: 6)
        var photos: [VectorPhoto] = []
        for number in 0..<1_200 {
            let photo = VectorPhoto("p\(number)", embedding: vectors.next())
            context.insert(photo)
            photos.append(photo)
        }
        try context.save()
        let target: [Float] = [9, -9, 9, -9, 9, -9, 9, -9]
        photos[5].embedding = target
        try context.save()
        func nearest(_ vector: [Float], exact: Bool = false) throws -> [String] {
            let reader = ModelContext(container)
            return Self.names(
                try reader.search(
                    SimilarityDescriptor<VectorPhoto>(nearest: vector, in: \.embedding, fetchLimit: 3, isExact: exact)))
        }
        #expect(try nearest(target).first == "p5")
        // Delete all but every tenth photo, in two saves; the entry node goes with them.
        for (number, photo) in photos.enumerated() where number % 10 != 0 {
            context.delete(photo)
            if number == 600 { try context.save() }
        }
        try context.save()
        for _ in 0..<20 {
            let vector = vectors.next()
            let approximate = try nearest(vector)
            #expect(approximate == (try nearest(vector, exact: true)))
            #expect(approximate.allSatisfy { Int($0.dropFirst())! % 10 == 0 })
        }
        // A unique takeover replaces the stored photo's vector with the new model's.
        context.insert(VectorPhoto("p10", embedding: target))
        try context.save()
        #expect(try nearest(target, exact: true).first == "p10")
        #expect(try nearest(target).first == "p10")
        try #expect(container.verify().problems.isEmpty)
    }

    @Test func vectorsThatDoNotFitAreTypedErrorsAndLeaveTheContextsChanges() throws {
        let (container, _) = try Self.store()
        let context = ModelContext(container)
        context.insert(VectorPhoto("short", embedding: [1, 2, 3]))
        #expect {
            try context.save()
        } throws: { error in
            let error = error as? SaveError
            return error?.code == .invalidArgument
                && error!.message.contains("has 3 numbers where its declaration says 8")
        }
        #expect(context.hasChanges)
        let photo = try #require(context.insertedModelsArray.first as? VectorPhoto)
        photo.embedding = [1, 0, 0, 0, 0, 0, .nan, 0]
        #expect(throws: SaveError.self) { try context.save() }
        photo.embedding = [1, 0, 0, 0, 0, 0, 0, 0]
        try context.save()

        func search(_ descriptor: SimilarityDescriptor<VectorPhoto>) -> FetchError.Code? {
            do {
                _ = try context.search(descriptor)
                return nil
            } catch { return (error as? FetchError)?.code }
        }
        #expect(search(SimilarityDescriptor(nearest: [1, 0], in: \.embedding)) == .invalidArgument)
        #expect(search(SimilarityDescriptor(nearest: [.infinity, 0, 0], in: \.position)) == .invalidArgument)
        #expect(search(SimilarityDescriptor(nearest: [1, 0, 0], in: \.position, fetchLimit: -1)) == .invalidArgument)
        #expect(search(SimilarityDescriptor(nearest: [1, 0, 0], in: \.position, searchEffort: 0)) == .invalidArgument)
        #expect(search(SimilarityDescriptor(nearest: [1, 0, 0], in: \.name)) == .notSearchable)
        // Two vector attributes: the search must say which.
        #expect(search(SimilarityDescriptor(nearest: [1, 0, 0])) == .notSearchable)
    }

    /// The largest limit and effort return every model, nearest first, exactly or not.
    @Test func theLargestLimitsReturnEverything() throws {
        let (container, _) = try Self.store()
        let context = ModelContext(container)
        for number in 0..<40 {
            context.insert(VectorPhoto("p\(number)", embedding: (0..<8).map { Float(($0 * number) % 7) - 3 }))
        }
        try context.save()
        let query: [Float] = [1, 2, 3, 4, 5, 6, 7, 8]
        let exact = try context.search(
            SimilarityDescriptor<VectorPhoto>(nearest: query, in: \.embedding, fetchLimit: .max, isExact: true))
        #expect(exact.count == 40)
        for effort in [nil, Int.max] as [Int?] {
            let found = try context.search(
                SimilarityDescriptor<VectorPhoto>(
                    nearest: query, in: \.embedding, fetchLimit: .max, searchEffort: effort))
            #expect(found.map(\.distance) == exact.map(\.distance))
        }
    }

    /// Damaged bytes in a vector index (a header, a node, a node's links) make the searches and
    /// saves that read them throw `damagedRecord`; nothing traps.
    @Test func damageToTheIndexIsATypedError() throws {
        func isDamaged(_ error: any Error) -> Bool { (error as? StorageError)?.code == .damagedRecord }
        for damaged in 0..<3 {
            let (container, _) = try Self.store()
            let context = ModelContext(container)
            var photos: [VectorPhoto] = []
            for number in 0..<20 {
                photos.append(VectorPhoto("p\(number)", embedding: (0..<8).map { Float(($0 + number) % 5) }))
                context.insert(photos[number])
            }
            try context.save()
            let row = try #require(photos[3].persistentModelID.rowID)
            let (key, value) = [
                (VectorLayout.headerKey, [UInt8](repeating: 0xFF, count: 27)),
                (VectorLayout.nodeKey(row: row), [UInt8](repeating: 0, count: 9)),
                (VectorLayout.linksKey(row: row), [0x05, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06]),
            ][damaged]
            let table = try #require(
                container.store.entityTables(of: VectorPhoto.self, for: "test").keys.vectors.first {
                    $0.attribute == "embedding"
                }
            ).table
            _ = try container.store.write(expectedBytes: 64) { txn in try txn.put(value, for: key, in: table) }
            let query: [Float] = [1, 0, 0, 0, 0, 0, 0, 1]
            #expect(
                "case \(damaged)",
                performing: {
                    _ = try context.search(
                        SimilarityDescriptor<VectorPhoto>(nearest: query, in: \.embedding, isExact: damaged != 2))
                    _ = try context.search(SimilarityDescriptor<VectorPhoto>(nearest: query, in: \.embedding))
                }, throws: isDamaged)
            context.insert(VectorPhoto("new", embedding: query))
            #expect("case \(damaged)", performing: { try context.save() }, throws: isDamaged)
        }
    }

    @Test func aVectorOptionOnAnotherTypeIsASchemaError() {
        #expect {
            _ = try ModelContainer(
                for: Schema([BadVectorModel.self]),
                configurations: ModelConfiguration(url: URL(fileURLWithPath: TemporaryDirectory().child("Bad.store"))))
        } throws: { error in
            (error as? SchemaError)?.code == .invalidProperty && "\(error)".contains("[Float]")
        }
    }

    /// In an encrypted store the vectors are sealed: no stored float's bytes appear in the file,
    /// and searches work as in a plaintext one.
    @Test func anEncryptedStoreSealsItsVectors() throws {
        let key = Data((0..<32).map { UInt8($0) })
        let (container, path) = try Self.store(encryption: .key(key))
        let context = ModelContext(container)
        let marker: [Float] = [1234.5678, -8765.4321, 1111.2222, 0.5, 0.25, 0.125, 3.75, 9.5]
        context.insert(VectorPhoto("marker", embedding: marker, position: [4321.5, 8765.25, 1234.75]))
        context.insert(VectorPhoto("other", embedding: [0, 1, 0, 0, 0, 0, 0, 0]))
        try context.save()
        #expect(
            Self.names(try context.search(SimilarityDescriptor(nearest: marker, in: \.embedding, fetchLimit: 1))) == [
                "marker"
            ])
        let file = try Data(contentsOf: URL(fileURLWithPath: path).appendingPathComponent("data.mdb"))
        let unit = VectorDistance(metric: .cosine, dimensions: 8).prepared(marker)
        for number in unit.prefix(3) + [4321.5, 8765.25] as [Float] {
            let bytes = withUnsafeBytes(of: number.bitPattern.littleEndian) { Data($0) }
            #expect(file.range(of: bytes) == nil, "\(number) in the file")
        }
    }
}

@Model final class BadVectorModel {
    @Attribute(.vector(dimensions: 4)) var caption: String
    init(_ caption: String) { self.caption = caption }
}

enum PinSchemaV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Pin.self] }

    @Model final class Pin {
        var name: String
        var place: [Float]
        init(_ name: String, _ place: [Float]) { (self.name, self.place) = (name, place) }
    }
}

enum PinSchemaV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 1, 0) }
    static var models: [any PersistentModel.Type] { [Pin.self] }

    @Model final class Pin {
        var name: String
        @Attribute(.vector(dimensions: 2, metric: .euclidean)) var place: [Float]
        init(_ name: String, _ place: [Float]) { (self.name, self.place) = (name, place) }
    }
}

enum PinSchemaV3: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 2, 0) }
    static var models: [any PersistentModel.Type] { [Pin.self] }

    @Model final class Pin {
        var name: String
        @Attribute(.vector(dimensions: 2, metric: .cosine)) var place: [Float]
        init(_ name: String, _ place: [Float]) { (self.name, self.place) = (name, place) }
    }
}

@Suite struct VectorIndexBuildTests {
    /// `.vector` added to stored models builds the index as the container opens, logging its
    /// progress, leaving out (and logging) stored vectors of another length; a changed metric
    /// builds it again.
    @Test func addingTheOptionBuildsTheIndexAndChangingItRebuildsIt() throws {
        LogCapture.install()
        let directory = TemporaryDirectory()
        let configuration = ModelConfiguration(url: URL(fileURLWithPath: directory.child("Pins.store")))
        do {
            let context = ModelContext(
                try ModelContainer(for: Schema(versionedSchema: PinSchemaV1.self), configurations: configuration))
            for (name, place) in [("origin", [0, 0]), ("far", [10, 10]), ("near", [1, 2]), ("odd", [1, 2, 3])] {
                context.insert(PinSchemaV1.Pin(name, place.map(Float.init)))
            }
            try context.save()
        }
        do {
            let container = try ModelContainer(
                for: Schema(versionedSchema: PinSchemaV2.self), configurations: configuration)
            #expect(try container.verify().problems.isEmpty)
            let reader = ModelContext(container)
            let found = try reader.search(SimilarityDescriptor<PinSchemaV2.Pin>(nearest: [9, 9], fetchLimit: 3))
            #expect(found.map(\.model.name) == ["far", "near", "origin"])
            #expect(abs(found[0].distance - 2.0.squareRoot()) < 1e-6)
        }
        let logged = LogCapture.messages.map(\.text).filter { $0.contains("vector index of Pin.place") }
        #expect(
            logged.contains { $0.contains("from 4 stored rows") } && logged.contains { $0.hasPrefix("Built") },
            "\(logged)")
        #expect(LogCapture.messages.contains { $0.text.contains("Left 1 stored vectors of Pin.place") })
        let container = try ModelContainer(
            for: Schema(versionedSchema: PinSchemaV3.self), configurations: configuration)
        let reader = ModelContext(container)
        let found = try reader.search(SimilarityDescriptor<PinSchemaV3.Pin>(nearest: [1, 1], fetchLimit: 2))
        #expect(found.map(\.model.name) == ["far", "near"])
        #expect(abs(found[0].distance) < 1e-6)
    }
}
