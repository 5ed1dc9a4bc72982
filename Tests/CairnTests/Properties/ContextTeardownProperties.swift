import Cairn
import Foundation
import Testing

/// When a context goes away, the models the app still holds, and every model they reach, read
/// their relationships exactly as before, and every other model of the context is freed (the
/// teardown breaks the cycles related models form). Checked against a reference: the graph as
/// labels, written down before the context went, and reachability computed on it. Each case is
/// replayable from its seed (`CAIRN_TEARDOWN_CASE=<seed>`).
@Suite struct ContextTeardownProperties {
    /// A model's relationships as the labels of their targets, in order.
    private struct Links: Equatable {
        var toMany: [[Int]]
        var toOne: [Int?]
    }

    private final class WeakModel {
        weak var model: (any PropModel)?
        init(_ model: any PropModel) { self.model = model }
    }

    private static func links(of model: any PropModel) -> Links {
        switch model {
        case let owner as PropOwner:
            return Links(toMany: [owner.items.map(\.label), owner.sponsored.map(\.label)], toOne: [])
        case let item as PropItem:
            return Links(toMany: [item.tags.map(\.label)], toOne: [item.owner?.label])
        case let tag as PropTag:
            return Links(toMany: [tag.items.map(\.label)], toOne: [tag.sponsor?.label])
        default:
            preconditionFailure("not a model of this suite")
        }
    }

    /// What a case leaves behind once its context is gone.
    private struct Outcome {
        var kept: [any PropModel] = []
        var reference: [Int: Links] = [:]
        var watched: [Int: WeakModel] = [:]
    }

    /// Builds a random graph in a context of its own (saved or not), writes down every model's
    /// links, keeps a random few of the models and lets the context go.
    private static func run(seed: UInt64, in container: ModelContainer) throws -> Outcome {
        var random = SeededGenerator(seed: seed)
        let context = ModelContext(container)
        var outcome = Outcome()
        do {
            let owners = (0..<Int.random(in: 1...6, using: &random)).map {
                PropOwner(label: $0, name: "o\($0)", rank: 0, score: nil)
            }
            let items = (0..<Int.random(in: 0...20, using: &random)).map {
                PropItem(label: 100 + $0, name: "i\($0)", rank: 0, score: nil)
            }
            let tags = (0..<Int.random(in: 0...8, using: &random)).map {
                PropTag(label: 200 + $0, name: "t\($0)", rank: 0, score: nil)
            }
            let all: [any PropModel] = owners + items + tags
            for model in all { context.insert(model) }
            for item in items {
                if Bool.random(using: &random) { item.owner = owners.randomElement(using: &random) }
                item.tags = tags.filter { _ in Int.random(in: 0..<4, using: &random) == 0 }
            }
            for tag in tags where Bool.random(using: &random) { tag.sponsor = owners.randomElement(using: &random) }
            if Bool.random(using: &random) { try context.save() }
            for model in all {
                outcome.reference[model.label] = links(of: model)
                outcome.watched[model.label] = WeakModel(model)
            }
            outcome.kept = all.filter { _ in Int.random(in: 0..<8, using: &random) == 0 }
        }
        return outcome
    }

    /// The labels the kept models reach through the reference's links, themselves included.
    private static func reachable(from kept: [any PropModel], in reference: [Int: Links]) -> Set<Int> {
        var reached = Set(kept.map(\.label))
        var pending = Array(reached)
        while let label = pending.popLast() {
            let links = reference[label]!
            for next in links.toMany.joined() + links.toOne.compactMap({ $0 }) where reached.insert(next).inserted {
                pending.append(next)
            }
        }
        return reached
    }

    @Test func keptModelsReadTheirGraphAndTheRestIsFreed() throws {
        let container = try makeContainer(inMemory: PropOwner.self, PropItem.self, PropTag.self)
        let seeds: [UInt64] =
            if let replay = ProcessInfo.processInfo.environment["CAIRN_TEARDOWN_CASE"].flatMap(UInt64.init) {
                [replay]
            } else {
                (0..<PropertyScale.count(60)).map { _ in UInt64.random(in: 0...UInt64.max) }
            }
        for seed in seeds {
            let outcome = try Self.run(seed: seed, in: container)
            let reached = Self.reachable(from: outcome.kept, in: outcome.reference)
            for (label, watched) in outcome.watched {
                guard reached.contains(label) else {
                    #expect(watched.model == nil, "case \(seed): model \(label), which nothing holds, was freed")
                    continue
                }
                let model = try #require(watched.model, "case \(seed): model \(label), which a kept one reaches, lives")
                #expect(Self.links(of: model) == outcome.reference[label], "case \(seed): model \(label)'s links")
            }
        }
    }
}
