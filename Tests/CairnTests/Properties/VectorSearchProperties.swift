import Foundation
import PropertyBased
import Testing

@testable import Cairn

// Similarity searches equal a brute-force scan: random vectors of a random length (small
// integers, so distances tie often), saved over several saves with changes, deletes and unique
// takeovers between them; random queries by both metrics, with and without a predicate, each
// answered exactly and through the graph and checked against the distances computed from the
// saved vectors. A collection no larger than the search effort is walked whole, so there the
// graph's answer must equal the exact one too.

@Model final class PropVector {
    #Unique<PropVector>([\.key])
    var key: Int
    var group: Int
    @Attribute(.vector(dimensions: 6, metric: .cosine)) var direction: [Float]
    @Attribute(.vector(dimensions: 6, metric: .euclidean)) var place: [Float]?

    init(key: Int, group: Int, direction: [Float], place: [Float]?) {
        (self.key, self.group, self.direction, self.place) = (key, group, direction, place)
    }
}

@Suite struct VectorSearchProperties {
    static func vector(_ random: inout SeededGenerator) -> [Float] {
        (0..<6).map { _ in Float(Int.random(in: -3...3, using: &random)) }
    }

    /// The saved models' vectors, by key.
    struct Saved {
        var direction: [Int: [Float]] = [:]
        var place: [Int: [Float]] = [:]
        var group: [Int: Int] = [:]
    }

    @Test func searchesEqualABruteForceScan() async {
        let input = zip(Gen.int(in: 1...60), Gen.int(in: 0...Int(Int32.max)))
        await propertyCheck(count: PropertyScale.count(25), input: input) { count, seed in
            var random = SeededGenerator(seed: UInt64(seed))
            let url = URL(fileURLWithPath: TemporaryDirectory().child("Props.store"))
            let container = try ModelContainer(
                for: Schema([PropVector.self]), configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            var saved = Saved()
            var models: [Int: PropVector] = [:]
            func note(_ model: PropVector) {
                (saved.direction[model.key], saved.place[model.key]) = (model.direction, model.place)
                saved.group[model.key] = model.group
            }
            for key in 0..<count {
                let model = PropVector(
                    key: key, group: key % 3, direction: Self.vector(&random),
                    place: Bool.random(using: &random) ? Self.vector(&random) : nil)
                context.insert(model)
                models[key] = model
                if Int.random(in: 0..<6, using: &random) == 0 { try context.save() }
            }
            try context.save()
            models.values.forEach(note)
            for key in models.keys.sorted() {
                switch Int.random(in: 0..<6, using: &random) {
                case 0:
                    context.delete(models[key]!)
                    (saved.direction[key], saved.place[key], saved.group[key]) = (nil, nil, nil)
                case 1:
                    models[key]!.direction = Self.vector(&random)
                    models[key]!.place = Bool.random(using: &random) ? Self.vector(&random) : nil
                    note(models[key]!)
                case 2:
                    // A takeover: a new model with the same key replaces the stored one.
                    let replacement = PropVector(
                        key: key, group: 2, direction: Self.vector(&random), place: Self.vector(&random))
                    context.insert(replacement)
                    note(replacement)
                default: break
                }
            }
            try context.save()
            let reader = ModelContext(container)
            for _ in 0..<6 {
                try Self.check(reader, saved, query: Self.vector(&random), &random, seed: seed)
            }
        }
    }

    static func check(
        _ context: ModelContext, _ saved: Saved, query: [Float], _ random: inout SeededGenerator, seed: Int
    ) throws {
        let limit = Int.random(in: 0...8, using: &random)
        let grouped = Bool.random(using: &random)
        let predicate = grouped ? #Predicate<PropVector> { $0.group != 1 } : nil
        for byPlace in [false, true] {
            let vectors = byPlace ? saved.place : saved.direction
            let measure: ([Float]) -> Double = {
                byPlace ? VectorReference.euclidean($0, query) : VectorReference.cosine($0, query)
            }
            let expected = vectors.filter { !grouped || saved.group[$0.key] != 1 }.mapValues(measure)
                .sorted { ($0.value, $0.key) < ($1.value, $1.key) }
            let keyPath: PartialKeyPath<PropVector> = byPlace ? \.place : \.direction
            for isExact in [true, false] {
                let found = try context.search(
                    SimilarityDescriptor(
                        nearest: query, in: keyPath, predicate: predicate, fetchLimit: limit, isExact: isExact))
                let shape = "place \(byPlace) exact \(isExact) limit \(limit) grouped \(grouped) [seed \(seed)]"
                #expect(found.count == min(limit, expected.count), "\(shape)")
                for (result, wanted) in zip(found, expected) {
                    // Float arithmetic against Double: equal to 1e-4, and each result's distance is
                    // its own vector's.
                    #expect(abs(result.distance - wanted.value) < 1e-4, "\(result.model.key) vs \(wanted): \(shape)")
                    let own = vectors[result.model.key].map(measure)
                    #expect(own.map { abs(result.distance - $0) < 1e-4 } == true, "\(result.model.key): \(shape)")
                }
            }
        }
    }
}
