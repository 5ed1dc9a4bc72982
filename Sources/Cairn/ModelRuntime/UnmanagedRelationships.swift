import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Keeps inverses in step between models that belong to no context yet, as SwiftData's do:
///
/// ```swift
/// let shelf = Shelf(name: "Poetry")
/// let odes = Volume(title: "Odes")
/// odes.shelf = shelf
/// shelf.volumes   // [odes], before either is inserted
/// context.insert(shelf)   // inserts odes too: every model it reaches
/// ```
///
/// The generated setters of a model outside any context, related to models outside any context,
/// report to ``current``, the calling thread's instance, which finds the relationship's inverse
/// in a schema of the model's class (made once per class) and has ``InverseLinks`` set the other
/// side. One per thread: models outside a context may be built on any thread, and the links'
/// ``InverseLinks/isMaintaining`` must tell only the setters it runs itself. Not for direct use.
@usableFromInline
final class UnmanagedRelationships: _ModelLoader {
    /// Sets the other side; nothing to load, a model outside any context being whole.
    private let links = InverseLinks()

    /// The calling thread's instance, made at its first use on the thread.
    ///
    /// ```swift
    /// let loader = _$state.loader ?? UnmanagedRelationships.current
    /// ```
    @usableFromInline static var current: UnmanagedRelationships {
        if let stored = pthread_getspecific(threadKey) {
            return Unmanaged<UnmanagedRelationships>.fromOpaque(stored).takeUnretainedValue()
        }
        let made = UnmanagedRelationships()
        pthread_setspecific(threadKey, Unmanaged.passRetained(made).toOpaque())
        return made
    }

    /// The thread-specific slot for ``current``; its destructor releases a thread's instance
    /// when the thread ends.
    private static let threadKey: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { stored in
            #if canImport(Darwin)
            Unmanaged<UnmanagedRelationships>.fromOpaque(stored).release()
            #else
            if let stored { Unmanaged<UnmanagedRelationships>.fromOpaque(stored).release() }
            #endif
        }
        precondition(status == 0, "pthread_key_create failed (\(status)): the process has no thread keys left")
        return key
    }()

    /// Nothing to load: a model outside any context holds every value it has.
    @usableFromInline func fulfill(_ model: any PersistentModel, _ index: Int) {}

    /// Nothing to keep: a model outside any context has no changes to save.
    @usableFromInline func modelDidChange(_ model: any PersistentModel) {}

    /// A model outside any context keeps the list it is given until it is inserted.
    @usableFromInline func keepFirstOccurrences(_ model: any PersistentModel, _ index: Int) {}

    /// Whether this thread's links are setting a relationship themselves.
    @usableFromInline var isUpdatingInverses: Bool { links.isMaintaining }

    /// Sets the inverse side of `model`'s relationship at `index`, changed from `oldTargets` to
    /// `newTargets` (a model outside any context has its old targets loaded; `nil` is none).
    @usableFromInline func relationshipDidChange(
        _ model: any PersistentModel, _ index: Int, from oldTargets: [any PersistentModel]?,
        to newTargets: [any PersistentModel]
    ) {
        // An empty list set on a new model (in its initialiser) has no other side to change.
        guard !links.isMaintaining, !(newTargets.isEmpty && oldTargets?.isEmpty ?? true),
            let (relationship, inverse) = InversesByClass.shared.pair(of: model, index)
        else { return }
        links.update(model, relationship: relationship, inverse: inverse, from: oldTargets ?? [], to: newTargets)
    }

    /// The same for one old and one new target, without lists.
    @usableFromInline func relationshipDidChange(
        _ model: any PersistentModel, _ index: Int, from oldTarget: (any PersistentModel)??,
        to newTarget: (any PersistentModel)?
    ) {
        let oldTarget = oldTarget ?? nil
        guard !links.isMaintaining, oldTarget != nil || newTarget != nil,
            let (relationship, inverse) = InversesByClass.shared.pair(of: model, index)
        else { return }
        links.update(model, relationship: relationship, inverse: inverse, from: oldTarget, to: newTarget)
    }
}

/// Each model class's relationships with their inverses, from a schema of the class and the
/// models it reaches (inverses pair the same in any schema that holds both sides), made once per
/// class and shared by every thread.
private final class InversesByClass: @unchecked Sendable {
    static let shared = InversesByClass()
    private let lock = NSLock()
    /// By class, the relationship at each property index and its inverse (`nil` for a
    /// relationship without one).
    private var pairs: [ObjectIdentifier: [Int: (Schema.Relationship, Schema.Relationship)?]] = [:]

    /// The relationship of `model`'s class at `index` and its inverse; `nil` when it has none.
    func pair(of model: any PersistentModel, _ index: Int) -> (Schema.Relationship, Schema.Relationship)? {
        let type = type(of: model)
        let key = ObjectIdentifier(type)
        if let known = lock.withLock({ pairs[key] }) { return known[index] ?? nil }
        let schema = Schema([type])
        var made: [Int: (Schema.Relationship, Schema.Relationship)?] = [:]
        if let entity = schema.entities.first(where: { ObjectIdentifier($0.modelType) == key }) {
            for relationship in entity.relationships {
                made[relationship.index] = schema.entitiesByName[relationship.destination].flatMap { destination in
                    destination.relationships.first { $0.name == relationship.inverseName }
                }.map { (relationship, $0) }
            }
        }
        lock.withLock { pairs[key] = made }
        return made[index] ?? nil
    }
}
