import Foundation

// What a getter reads when its model has no context to load from: the context that fetched the
// model was released (or the model was made without its initialiser). The failed-load policy of
// `Docs/Reliability.md` applies: the property reads as its placeholder, and since there is no
// context to record the error for the next save or fetch, the failure is logged.

extension PersistentModel {
    /// Loads the placeholder of the persisted property at `index` of a model that belongs to no
    /// context (``_$fulfill(_:)`` calls it): the attribute's default or empty value, an empty
    /// relationship. Logged at `warning`; no context is left to report it to.
    ///
    /// ```swift
    /// book._$fillPlaceholderWithoutContext(2)   // book.title now reads ""
    /// ```
    @usableFromInline
    func _$fillPlaceholderWithoutContext(_ index: Int) {
        let entity = Schema.Entity(Self.self)
        let name: String
        if let relationship = entity.relationships.first(where: { $0.index == index }) {
            relationship.access.load(self, [])
            name = relationship.name
        } else if let attribute = entity.attributes.first(where: { $0.index == index }),
            let access = attribute.access, access.fillPlaceholder(self)
        {
            name = attribute.name
        } else {
            // No value of the property's type can be made up (`Docs/Reliability.md`, "What still
            // stops the process").
            preconditionFailure(
                "\(Self.self)'s persisted property #\(index) was read before it was loaded, the model belongs to no "
                    + "context that could load it, and the property has no default value and its type no empty "
                    + "value. Keep the model's context alive while its models are read, or give the property a "
                    + "default value.")
        }
        let id = _$state.persistentIdentifier.map { "\($0)" } ?? "a \(Self.self) never inserted"
        let message =
            "\(id).\(name) was read after its context was released, before it was loaded: it read as its default "
            + "value (or nil or empty). Keep the ModelContext alive while its models are read."
        cairnLog.warning("\(message)")
    }
}
