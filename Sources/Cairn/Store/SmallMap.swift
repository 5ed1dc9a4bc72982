/// Values by key for the handful of keys a schema has (its entities by model class or by
/// interned name): the keys are compared one by one, which for a few dozen is cheaper than
/// hashing the key, and the save and fetch paths look an entity up once or more per model.
/// Beyond ``linearLimit`` keys it hashes, as a dictionary does.
///
/// ```swift
/// let byType = SmallMap(entities.map { (ObjectIdentifier($0.entity.modelType), $0) })
/// let tables = byType[ObjectIdentifier(Book.self)]
/// ```
struct SmallMap<Key: Hashable, Value> {
    /// Up to this many keys are searched in order.
    static var linearLimit: Int { 32 }

    private let keys: [Key]
    private let values: [Value]
    /// The same pairs hashed, when there are more than ``linearLimit``.
    private let hashed: [Key: Value]?

    /// The map of `pairs`, whose keys are distinct.
    init(_ pairs: [(Key, Value)]) {
        keys = pairs.map(\.0)
        values = pairs.map(\.1)
        hashed = pairs.count > Self.linearLimit ? Dictionary(uniqueKeysWithValues: pairs) : nil
    }

    /// The value of `key`, if the map has it.
    subscript(key: Key) -> Value? {
        if let hashed { return hashed[key] }
        for index in keys.indices where keys[index] == key { return values[index] }
        return nil
    }
}
