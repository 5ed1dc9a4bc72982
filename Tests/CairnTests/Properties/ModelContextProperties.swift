import Cairn
import Foundation
import PropertyBased
import Testing

// MARK: - The models under test

/// What every model of this suite has, so the checks read attributes without knowing the entity.
protocol PropModel: PersistentModel {
    /// The label the reference model knows this model by; set once, never changed.
    var label: Int { get set }
    var name: String { get set }
    var rank: Int { get set }
    var score: Double? { get set }
}

// Between them the three entities use every delete rule: owner → items cascades, item → tags
// denies, tag → items and both to-one ends nullify, owner → sponsored takes no action.

@Model final class PropOwner: PropModel {
    var label: Int
    var name: String
    var rank: Int
    var score: Double?
    @Relationship(deleteRule: .cascade, inverse: \PropItem.owner) var items: [PropItem] = []
    @Relationship(deleteRule: .noAction, inverse: \PropTag.sponsor) var sponsored: [PropTag] = []

    init(label: Int, name: String, rank: Int, score: Double?) {
        self.label = label
        self.name = name
        self.rank = rank
        self.score = score
    }
}

@Model final class PropItem: PropModel {
    var label: Int
    var name: String
    var rank: Int
    var score: Double?
    var owner: PropOwner?
    @Relationship(deleteRule: .deny, inverse: \PropTag.items) var tags: [PropTag] = []

    init(label: Int, name: String, rank: Int, score: Double?) {
        self.label = label
        self.name = name
        self.rank = rank
        self.score = score
    }
}

@Model final class PropTag: PropModel {
    var label: Int
    var name: String
    var rank: Int
    var score: Double?
    var items: [PropItem] = []
    var sponsor: PropOwner?

    init(label: Int, name: String, rank: Int, score: Double?) {
        self.label = label
        self.name = name
        self.rank = rank
        self.score = score
    }
}

enum PropKind: Int, CaseIterable, Sendable, CustomStringConvertible {
    case owner, item, tag

    var description: String { ["owner", "item", "tag"][rawValue] }

    func make(label: Int, seed: Int) -> any PropModel {
        let (name, rank, score) = PropKind.attributes(seed)
        switch self {
        case .owner: return PropOwner(label: label, name: name, rank: rank, score: score)
        case .item: return PropItem(label: label, name: name, rank: rank, score: score)
        case .tag: return PropTag(label: label, name: name, rank: rank, score: score)
        }
    }

    /// Attribute values derived from a small seed, so shrinking the seed simplifies them.
    static func attributes(_ seed: Int) -> (String, Int, Double?) {
        ("n\(seed)", seed * 3 - 20, seed % 4 == 0 ? nil : Double(seed) * 0.25 - 1)
    }
}

/// The six ends of the schema's three relationships, so the reference treats them alike.
enum PropRelationship: Int, CaseIterable, Sendable, CustomStringConvertible {
    case ownerItems, ownerSponsored, itemOwner, itemTags, tagItems, tagSponsor

    var description: String {
        ["owner.items", "owner.sponsored", "item.owner", "item.tags", "tag.items", "tag.sponsor"][rawValue]
    }

    var source: PropKind {
        switch self {
        case .ownerItems, .ownerSponsored: .owner
        case .itemOwner, .itemTags: .item
        case .tagItems, .tagSponsor: .tag
        }
    }

    var destination: PropKind { inverse.source }

    var inverse: PropRelationship {
        switch self {
        case .ownerItems: .itemOwner
        case .itemOwner: .ownerItems
        case .ownerSponsored: .tagSponsor
        case .tagSponsor: .ownerSponsored
        case .itemTags: .tagItems
        case .tagItems: .itemTags
        }
    }

    var isToOne: Bool { self == .itemOwner || self == .tagSponsor }

    /// Whether deleting the source drops it from the targets' inverse at once (`.nullify`).
    var nullifies: Bool { self == .itemOwner || self == .tagItems || self == .tagSponsor }

    static func of(_ kind: PropKind) -> [PropRelationship] { allCases.filter { $0.source == kind } }

    func targets(of model: any PersistentModel) -> [any PersistentModel] {
        switch self {
        case .ownerItems: (model as! PropOwner).items
        case .ownerSponsored: (model as! PropOwner).sponsored
        case .itemOwner: (model as! PropItem).owner.map { [$0] } ?? []
        case .itemTags: (model as! PropItem).tags
        case .tagItems: (model as! PropTag).items
        case .tagSponsor: (model as! PropTag).sponsor.map { [$0] } ?? []
        }
    }
}

// MARK: - Operations

enum PropOp: Sendable, CustomStringConvertible {
    /// `via` 0 inserts the model alone; otherwise the new model is first related to an existing
    /// one, which brings it into the context as in SwiftData.
    case insert(PropKind, seed: Int, via: Int, target: Int)
    case update(PropKind, pick: Int, field: Int, seed: Int)
    case delete(PropKind, pick: Int)
    /// A to-one is set; a to-many gets the target appended (`position` 0) or inserted at
    /// `position - 1` modulo its length plus one.
    case relate(PropRelationship, source: Int, target: Int, position: Int)
    case unrelate(PropRelationship, source: Int, position: Int)
    /// `fix`: when the save is denied, detach what blocks it and save again.
    case save(fix: Bool)
    case rollback
    case reopen

    /// Small numbers map to simple operations, so shrinking turns steps into plain inserts.
    init(_ code: Int, _ a: Int, _ b: Int, _ c: Int) {
        switch code {
        case 0..<18: self = .insert(PropKind(rawValue: a % 3)!, seed: b, via: c % 3, target: a / 3)
        case 18..<26: self = .update(PropKind(rawValue: a % 3)!, pick: b, field: c % 3, seed: c)
        case 26..<40: self = .delete(PropKind(rawValue: a % 3)!, pick: b)
        case 40..<66: self = .relate(PropRelationship(rawValue: a % 6)!, source: b, target: c, position: a / 6)
        case 66..<74: self = .unrelate(PropRelationship(rawValue: a % 6)!, source: b, position: c)
        case 74..<90: self = .save(fix: c % 2 == 0)
        case 90..<95: self = .rollback
        default: self = .reopen
        }
    }

    var isReopen: Bool {
        if case .reopen = self { return true }
        return false
    }

    var description: String {
        switch self {
        case .insert(let kind, let seed, let via, let target):
            via == 0 ? "insert(\(kind) \(seed))" : "insert(\(kind) \(seed) via #\(target))"
        case .update(let kind, let pick, let field, let seed): "update(\(kind) #\(pick) field \(field) = \(seed))"
        case .delete(let kind, let pick): "delete(\(kind) #\(pick))"
        case .relate(let relationship, let source, let target, let position):
            "relate(\(relationship) #\(source) → #\(target) at \(position))"
        case .unrelate(let relationship, let source, let position):
            "unrelate(\(relationship) #\(source) at \(position))"
        case .save(let fix): fix ? "save(fix)" : "save"
        case .rollback: "rollback"
        case .reopen: "reopen"
        }
    }

    static let sequences = zip(Gen.int(in: 0...99), Gen.int(in: 0...17), Gen.int(in: 0...15), Gen.int(in: 0...15))
        .map { PropOp($0.0, $0.1, $0.2, $0.3) }
        .array(of: 1...50)
}

// MARK: - The reference model

/// One model as the reference sees it: attributes, and relationship targets by label, in order.
struct RefModel: Equatable {
    let kind: PropKind
    var name: String
    var rank: Int
    var score: Double?
    var targets: [PropRelationship: [Int]] = [:]

    subscript(relationship: PropRelationship) -> [Int] {
        get { targets[relationship] ?? [] }
        set { targets[relationship] = newValue }
    }
}

/// What the store holds (`saved`) and what the context shows (`pending`), in plain Swift.
struct Reference {
    var saved: [Int: RefModel] = [:]
    var pending: [Int: RefModel] = [:]
    /// Models passed to `delete`, in order, not yet saved.
    var deletions: [Int] = []
    var nextLabel = 0

    enum Outcome {
        case commit(doomed: Set<Int>)
        /// Deleted items and the tags that survive them.
        case denied(blockers: [Int: [Int]])
    }

    /// Deleted before it was ever saved: gone from fetches, but still what others may point at.
    func isDropped(_ label: Int) -> Bool { saved[label] == nil && deletions.contains(label) }

    /// Models an operation may touch: in the context and not dropped.
    func usable(_ kind: PropKind) -> [Int] {
        pending.filter { $0.value.kind == kind && !isDropped($0.key) }.keys.sorted()
    }

    /// Models a fetch that includes pending changes returns: a pending delete's cascade shows
    /// before the save.
    func fetchable(_ kind: PropKind) -> Set<Int> {
        let doomed = cascaded()
        return Set(pending.filter { $0.value.kind == kind && !doomed.contains($0.key) }.keys)
    }

    /// The deleted models and those their cascades reach (owner → items, transitively).
    func cascaded() -> Set<Int> {
        var doomed = Set(deletions)
        var queue = deletions
        while let label = queue.popLast() {
            for item in pending[label]![.ownerItems] where doomed.insert(item).inserted { queue.append(item) }
        }
        return doomed
    }

    func stored(_ kind: PropKind) -> Set<Int> { Set(saved.filter { $0.value.kind == kind }.keys) }

    /// Deletes `label`: the delete rules wait for the save, but nullify shows at once, as in
    /// SwiftData: each model the delete (and its cascade) leaves behind drops the deleted models
    /// from the inverse of every `.nullify` relationship. No action and deny leave the other
    /// side as it is until the save.
    mutating func delete(_ label: Int) {
        guard !deletions.contains(label) else { return }
        let before = Set(deletions)
        deletions.append(label)
        var doomed: Set<Int> = [label]
        var queue = [label]
        while let next = queue.popLast() {
            for item in pending[next]![.ownerItems] where doomed.insert(item).inserted { queue.append(item) }
        }
        for deleted in doomed {
            for relationship in PropRelationship.of(pending[deleted]!.kind) where relationship.nullifies {
                for target in pending[deleted]![relationship]
                where !doomed.contains(target) && !before.contains(target) && pending[target] != nil {
                    pending[target]![relationship.inverse].removeAll { $0 == deleted }
                }
            }
        }
    }

    mutating func insert(_ kind: PropKind, seed: Int) -> Int {
        let (name, rank, score) = PropKind.attributes(seed)
        let label = nextLabel
        nextLabel += 1
        pending[label] = RefModel(kind: kind, name: name, rank: rank, score: score)
        return label
    }

    /// Sets a relationship and keeps inverses in step as SwiftData does: targets that leave drop
    /// the source from their inverse; targets that join get it appended, and a to-one inverse
    /// first leaves its previous partner.
    mutating func set(_ relationship: PropRelationship, of source: Int, to new: [Int]) {
        let old = pending[source]![relationship]
        pending[source]![relationship] = new
        let inverse = relationship.inverse
        for target in old where !new.contains(target) && pending[target] != nil {
            pending[target]![inverse].removeAll { $0 == source }
        }
        for target in new where !old.contains(target) && pending[target] != nil {
            let current = pending[target]![inverse]
            guard !current.contains(source) else { continue }
            if inverse.isToOne {
                if let previous = current.first, pending[previous] != nil {
                    pending[previous]![relationship].removeAll { $0 == target }
                }
                pending[target]![inverse] = [source]
            } else {
                pending[target]![inverse].append(source)
            }
        }
    }

    /// The delete rules of `ModelContext.save()`: cascade is transitive, a deny blocks while a
    /// related model survives, nullify drops the deleted model from the inverse (shown since the
    /// delete, `delete(_:)`; again here for models related to it since). No action leaves the
    /// inverse's stored edges alone until the save, but after it Cairn never shows a deleted
    /// model: reads skip it and the save drops it from loaded relationships.
    func plan() -> Outcome {
        let doomed = cascaded()
        var blockers: [Int: [Int]] = [:]
        for label in doomed where pending[label]!.kind == .item {
            let surviving = pending[label]![.itemTags].filter { !doomed.contains($0) }
            if !surviving.isEmpty { blockers[label] = surviving }
        }
        if !blockers.isEmpty { return .denied(blockers: blockers) }
        return .commit(doomed: doomed)
    }

    mutating func commit(doomed: Set<Int>) {
        var next: [Int: RefModel] = [:]
        for (label, var model) in pending where !doomed.contains(label) {
            for relationship in PropRelationship.of(model.kind) {
                model[relationship].removeAll { doomed.contains($0) }
            }
            next[label] = model
        }
        saved = next
        pending = next
        deletions = []
    }

    /// Rollback and reopen both leave exactly what was saved.
    mutating func discardPending() {
        pending = saved
        deletions = []
    }
}

// MARK: - The harness: a real context driven in step with the reference

struct Mismatch: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

final class PropHarness {
    let directory: TemporaryDirectory?
    var container: ModelContainer
    var context: ModelContext
    var reference = Reference()
    /// This session's instance of each model the harness has touched.
    var instances: [Int: any PropModel] = [:]
    var labelsByObject: [ObjectIdentifier: Int] = [:]
    /// Keeps every instance of the session alive, so no object identifier is reused for another.
    var retained: [AnyObject] = []
    var labelsByID: [PersistentIdentifier: Int] = [:]
    var ids: [Int: PersistentIdentifier] = [:]
    /// After a rollback or reopen the context's models stay unloaded until the next operation
    /// has used them, so that operation meets faults rather than models the checks loaded.
    var deferContextCheck = false

    init(onDisk: Bool) throws {
        directory = onDisk ? TemporaryDirectory("ModelContextProperties") : nil
        container = try Self.open(directory)
        context = ModelContext(container)
    }

    static func open(_ directory: TemporaryDirectory?) throws -> ModelContainer {
        let configuration =
            if let directory {
                ModelConfiguration(url: URL(fileURLWithPath: directory.child("Props.store")))
            } else {
                ModelConfiguration(isStoredInMemoryOnly: true)
            }
        return try ModelContainer(
            for: PropOwner.self, PropItem.self, PropTag.self, configurations: configuration)
    }

    func tearDown() {
        Self.release(liveInstances, from: context)
    }

    /// This session's instances of models that exist (reading a fault of a deleted row traps).
    var liveInstances: [any PropModel] {
        reference.pending.keys.compactMap { instances[$0] }
    }

    /// Related models hold each other strongly (as any Swift objects that point at each other
    /// do), so a session's models would outlive it. A rollback unloads the properties of changed
    /// models, which breaks those cycles, so every model is marked changed first.
    static func release(_ models: [any PropModel], from context: ModelContext) {
        for model in models where model.modelContext === context && !model.isDeleted { model.rank = model.rank }
        context.rollback()
    }

    func remember(_ model: any PropModel, as label: Int) {
        instances[label] = model
        labelsByObject[ObjectIdentifier(model)] = label
        retained.append(model)
    }

    func instance(_ label: Int) -> any PropModel {
        if let model = instances[label] { return model }
        let model = context.model(for: ids[label]!) as! any PropModel
        remember(model, as: label)
        return model
    }

    /// The label of a model the context handed out, by instance or else by identifier.
    func label(of model: any PersistentModel) throws -> Int {
        if let label = labelsByObject[ObjectIdentifier(model)] { return label }
        guard model.modelContext != nil || model.isDeleted else {
            throw Mismatch("a relationship holds a model that belongs to no context")
        }
        guard let label = labelsByID[model.persistentModelID] else {
            throw Mismatch("a relationship holds \(model.persistentModelID), which the reference never saw")
        }
        if reference.pending[label] != nil, let known = instances[label], known !== model {
            throw Mismatch("the context has two instances of #\(label)")
        }
        remember(model as! any PropModel, as: label)
        return label
    }

    func pick(_ kind: PropKind, _ index: Int) -> Int? {
        let candidates = reference.usable(kind)
        return candidates.isEmpty ? nil : candidates[index % candidates.count]
    }

    // MARK: Operations

    func perform(_ op: PropOp) throws {
        deferContextCheck = false
        switch op {
        case .insert(let kind, let seed, let via, let target):
            try insert(kind, seed: seed, via: via, target: target)
        case .update(let kind, let pick, let field, let seed):
            guard let label = self.pick(kind, pick) else { return }
            let model = instance(label)
            let (name, rank, score) = PropKind.attributes(seed)
            switch field {
            case 0:
                model.name = name
                reference.pending[label]!.name = name
            case 1:
                model.rank = rank
                reference.pending[label]!.rank = rank
            default:
                model.score = score
                reference.pending[label]!.score = score
            }
        case .delete(let kind, let pick):
            let candidates = reference.fetchable(kind).sorted()
            guard !candidates.isEmpty else { return }
            let label = candidates[pick % candidates.count]
            delete(instance(label))
            reference.delete(label)
        case .relate(let relationship, let source, let target, let position):
            try relate(relationship, source: source, target: target, position: position)
        case .unrelate(let relationship, let source, let position):
            try unrelate(relationship, source: source, position: position)
        case .save(let fix):
            try save(fix: fix)
        case .rollback:
            context.rollback()
            for label in reference.pending.keys where reference.saved[label] == nil {
                if let model = instances.removeValue(forKey: label), model.modelContext != nil {
                    throw Mismatch("rolled-back insert #\(label) still belongs to the context")
                }
            }
            reference.discardPending()
            deferContextCheck = true
        case .reopen:
            // Released first, so the new container opens the store afresh instead of sharing
            // the environment the old one would keep alive.
            Self.release(liveInstances, from: context)
            instances = [:]
            labelsByObject = [:]
            retained = []
            container = try Self.open(directory)
            context = ModelContext(container)
            reference.discardPending()
            deferContextCheck = true
        }
    }

    func delete(_ model: any PropModel) {
        switch model {
        case let owner as PropOwner: context.delete(owner)
        case let item as PropItem: context.delete(item)
        case let tag as PropTag: context.delete(tag)
        default: fatalError("unknown model")
        }
    }

    func insert(_ kind: PropKind, seed: Int, via: Int, target: Int) throws {
        let label = reference.insert(kind, seed: seed)
        let model = kind.make(label: label, seed: seed)
        remember(model, as: label)
        // A new model related to one in the context joins it through the relationship alone.
        let relationship: PropRelationship? =
            via == 0 ? nil : [.owner: .ownerItems, .item: .itemOwner, .tag: .tagItems][kind]
        if let relationship, let other = pick(relationship.destination, target) {
            let related = instance(other)
            switch relationship {
            case .ownerItems: (model as! PropOwner).items.append(related as! PropItem)
            case .itemOwner: (model as! PropItem).owner = (related as! PropOwner)
            default: (model as! PropTag).items.append(related as! PropItem)
            }
            reference.set(relationship, of: label, to: [other])
            guard model.modelContext === context else {
                throw Mismatch("a new model related to #\(other) did not join the context")
            }
            return
        }
        switch model {
        case let owner as PropOwner: context.insert(owner)
        case let item as PropItem: context.insert(item)
        case let tag as PropTag: context.insert(tag)
        default: fatalError("unknown model")
        }
    }

    func relate(_ relationship: PropRelationship, source: Int, target: Int, position: Int) throws {
        guard let sourceLabel = pick(relationship.source, source),
            let targetLabel = pick(relationship.destination, target)
        else { return }
        var current = reference.pending[sourceLabel]![relationship]
        if relationship.isToOne {
            current = [targetLabel]
        } else {
            guard !current.contains(targetLabel) else { return }
            let index = position == 0 ? current.count : (position - 1) % (current.count + 1)
            current.insert(targetLabel, at: index)
        }
        let model = instance(sourceLabel)
        let other = instance(targetLabel)
        // A to-one is set without reading it first, so a fault's unloaded value is replaced as is.
        let count = relationship.isToOne ? 0 : relationship.targets(of: model).count
        guard relationship.isToOne || count == current.count - 1 else {
            throw Mismatch("#\(sourceLabel).\(relationship) holds \(count) models, the reference \(current.count - 1)")
        }
        let index = position == 0 ? count : (position - 1) % (count + 1)
        switch relationship {
        case .itemOwner: (model as! PropItem).owner = (other as! PropOwner)
        case .tagSponsor: (model as! PropTag).sponsor = (other as! PropOwner)
        case .ownerItems: (model as! PropOwner).items.insert(other as! PropItem, at: index)
        case .ownerSponsored: (model as! PropOwner).sponsored.insert(other as! PropTag, at: index)
        case .itemTags: (model as! PropItem).tags.insert(other as! PropTag, at: index)
        case .tagItems: (model as! PropTag).items.insert(other as! PropItem, at: index)
        }
        reference.set(relationship, of: sourceLabel, to: current)
    }

    func unrelate(_ relationship: PropRelationship, source: Int, position: Int) throws {
        guard let sourceLabel = pick(relationship.source, source) else { return }
        var current = reference.pending[sourceLabel]![relationship]
        guard !current.isEmpty else { return }
        let index = position % current.count
        current.remove(at: index)
        let model = instance(sourceLabel)
        let count = relationship.isToOne ? 1 : relationship.targets(of: model).count
        guard count == current.count + 1 else {
            throw Mismatch("#\(sourceLabel).\(relationship) holds \(count) models, the reference \(current.count + 1)")
        }
        switch relationship {
        case .itemOwner: (model as! PropItem).owner = nil
        case .tagSponsor: (model as! PropTag).sponsor = nil
        case .ownerItems: (model as! PropOwner).items.remove(at: index)
        case .ownerSponsored: (model as! PropOwner).sponsored.remove(at: index)
        case .itemTags: (model as! PropItem).tags.remove(at: index)
        case .tagItems: (model as! PropTag).items.remove(at: index)
        }
        reference.set(relationship, of: sourceLabel, to: current)
    }

    func save(fix: Bool) throws {
        switch reference.plan() {
        case .commit(let doomed):
            do {
                try context.save()
            } catch {
                throw Mismatch("save threw \(error), but the reference commits")
            }
            didCommit(doomed: doomed)
        case .denied(let blockers):
            do {
                try context.save()
                throw Mismatch("save succeeded, but the reference denies it (blockers \(blockers))")
            } catch let error as SaveError where error.code == .deleteDenied {
                let expected = Set(blockers.values.joined().map { instance($0).persistentModelID })
                guard !error.models.isEmpty, Set(error.models).isSubset(of: expected) else {
                    throw Mismatch("the denial names \(error.models), not among the blockers \(blockers)")
                }
            } catch let mismatch as Mismatch {
                throw mismatch
            } catch {
                throw Mismatch("save threw \(error), but the reference expects a denial")
            }
            guard context.hasChanges else { throw Mismatch("a denied save left no pending changes") }
            guard fix else { return }
            // The refusal must have written nothing and kept every change: check both before
            // the fix, so the retry shows that all of it is committed at once.
            try check(context: true)
            for (item, tags) in blockers.sorted(by: { $0.key < $1.key }) {
                let model = instance(item) as! PropItem
                let blocking = tags.map { instance($0) }
                model.tags.removeAll { tag in blocking.contains { $0 === tag } }
                reference.set(
                    .itemTags, of: item, to: reference.pending[item]![.itemTags].filter { !tags.contains($0) })
            }
            try save(fix: false)
        }
    }

    func didCommit(doomed: Set<Int>) {
        let hadRows = Set(reference.saved.keys)
        reference.commit(doomed: doomed)
        for label in reference.saved.keys where ids[label] == nil {
            let id = instances[label]!.persistentModelID
            ids[label] = id
            labelsByID[id] = label
        }
        for label in doomed {
            if let model = instances[label], hadRows.contains(label), !model.isDeleted {
                Issue.record("#\(label) was deleted by the save, but isDeleted is false")
            }
        }
    }

    // MARK: Checks

    /// Compares the store, through a fresh context, with the saved reference, and (unless
    /// deferred) the context's models with the pending reference.
    func check(context checkModels: Bool) throws {
        try checkStore()
        try checkCounts()
        if checkModels { try checkContext() }
    }

    func checkCounts() throws {
        for kind in PropKind.allCases {
            let (pending, pendingCount, storedCount) =
                switch kind {
                case .owner: try fetch(PropOwner.self)
                case .item: try fetch(PropItem.self)
                case .tag: try fetch(PropTag.self)
                }
            let expected = reference.fetchable(kind)
            guard pending == expected, pendingCount == expected.count else {
                throw Mismatch(
                    "fetching \(kind)s gives \(pending.sorted()) (count \(pendingCount)), the reference \(expected.sorted())"
                )
            }
            guard storedCount == reference.stored(kind).count else {
                throw Mismatch(
                    "\(storedCount) \(kind)s are saved, the reference has \(reference.stored(kind).count)")
            }
        }
    }

    func fetch<T: PropModel>(_ type: T.Type) throws -> (Set<Int>, Int, Int) {
        let labels = try context.fetch(FetchDescriptor<T>()).map { try label(of: $0) }
        guard labels.count == Set(labels).count else { throw Mismatch("a fetch returned a model twice: \(labels)") }
        var saved = FetchDescriptor<T>()
        saved.includePendingChanges = false
        return (Set(labels), try context.fetchCount(FetchDescriptor<T>()), try context.fetchCount(saved))
    }

    func checkContext() throws {
        for label in reference.pending.keys.sorted() where !reference.isDropped(label) {
            try compare(instance(label), with: reference.pending[label]!, label: label, where: "context") {
                try self.label(of: $0)
            }
        }
    }

    func checkStore() throws {
        let probe = ModelContext(container)
        var seen: Set<Int> = []
        var loaded: [any PropModel] = []
        defer { Self.release(loaded, from: probe) }
        func read<T: PropModel>(_ type: T.Type) throws {
            for model in try probe.fetch(FetchDescriptor<T>()) {
                loaded.append(model)
                guard let label = labelsByID[model.persistentModelID], let expected = reference.saved[label] else {
                    throw Mismatch("the store holds \(model.persistentModelID), which the reference has not saved")
                }
                guard model.label == label else {
                    throw Mismatch("\(model.persistentModelID) is #\(model.label) in the store, #\(label) when saved")
                }
                seen.insert(label)
                try compare(model, with: expected, label: label, where: "store") { target in
                    guard let label = self.labelsByID[target.persistentModelID] else {
                        throw Mismatch("a stored relationship holds \(target.persistentModelID), which was never saved")
                    }
                    return label
                }
            }
        }
        try read(PropOwner.self)
        try read(PropItem.self)
        try read(PropTag.self)
        guard seen == Set(reference.saved.keys) else {
            throw Mismatch("the store holds \(seen.sorted()), the reference saved \(reference.saved.keys.sorted())")
        }
    }

    func compare(
        _ model: any PropModel, with expected: RefModel, label: Int, where place: String,
        labelOf: (any PersistentModel) throws -> Int
    ) throws {
        let actual = (model.name, model.rank, model.score)
        guard actual == (expected.name, expected.rank, expected.score) else {
            throw Mismatch(
                "\(place): #\(label) has \(actual), the reference \((expected.name, expected.rank, expected.score))")
        }
        for relationship in PropRelationship.of(expected.kind) {
            let targets = try relationship.targets(of: model).map(labelOf)
            guard targets == expected[relationship] else {
                throw Mismatch(
                    "\(place): #\(label).\(relationship) is \(targets), the reference \(expected[relationship])")
            }
        }
    }

    func run(_ ops: [PropOp]) {
        for (step, op) in ops.enumerated() {
            do {
                try perform(op)
                try check(context: !deferContextCheck)
            } catch {
                Issue.record("step \(step), \(op): \(error)")
                return
            }
        }
    }
}

@Suite struct ModelContextProperties {
    @Test(.shrinking) func randomOperationSequencesKeepTheContextAndStoreInStepWithAPlainSwiftReference() async {
        await propertyCheck(count: PropertyScale.count(300), input: PropOp.sequences) { ops in
            let harness = try PropHarness(onDisk: ops.contains(where: \.isReopen))
            defer { harness.tearDown() }
            harness.run(ops)
        }
    }
}
