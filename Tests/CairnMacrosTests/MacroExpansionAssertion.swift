import CairnMacros
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// Cairn's macros by the names the tests' sources use, as the compiler would see them.
enum CairnMacroSpecs {
    /// Every macro; `@Model` gets the conformances its declaration lists.
    static var all: [String: MacroSpec] {
        [
            "Model": MacroSpec(type: ModelMacro.self, conformances: ["PersistentModel", "Observable"]),
            "_PersistedProperty": MacroSpec(type: PersistedPropertyMacro.self),
            "Attribute": MacroSpec(type: AttributeMacro.self),
            "Relationship": MacroSpec(type: RelationshipMacro.self),
            "Transient": MacroSpec(type: TransientMacro.self),
            "Unique": MacroSpec(type: UniqueMacro.self),
            "Index": MacroSpec(type: IndexMacro.self),
            "ModelActor": MacroSpec(type: ModelActorMacro.self, conformances: ["ModelActor"]),
        ]
    }

    /// Every macro but `_PersistedProperty`, so an expansion shows the `@_PersistedProperty(i)`
    /// attributes `@Model` adds instead of their accessors.
    static var withoutPersistedProperty: [String: MacroSpec] {
        all.filter { $0.key != "_PersistedProperty" }
    }
}

/// `assertMacroExpansion` for Swift Testing: failures are recorded as issues at the caller.
func assertExpansion(
    _ source: String,
    expandedSource: String,
    diagnostics: [DiagnosticSpec] = [],
    macros: [String: MacroSpec] = CairnMacroSpecs.all,
    applyFixIts: [String]? = nil,
    fixedSource: String? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
) {
    assertMacroExpansion(
        source,
        expandedSource: expandedSource,
        diagnostics: diagnostics,
        macroSpecs: macros,
        applyFixIts: applyFixIts,
        fixedSource: fixedSource,
        failureHandler: { failure in
            Issue.record(
                Comment(rawValue: failure.message),
                sourceLocation: Testing.SourceLocation(
                    fileID: failure.location.fileID,
                    filePath: failure.location.filePath,
                    line: failure.location.line,
                    column: failure.location.column
                )
            )
        },
        fileID: fileID,
        filePath: filePath,
        line: line,
        column: column
    )
}

/// Expected expansions that every `@Model` test shares.
enum ExpectedExpansion {
    /// The state `@Model` adds to every model, at member depth in an expanded source (four
    /// spaces in), for a model declared with `access` (`""`, or an access level and a space).
    ///
    /// ```swift
    /// expandedSource: """
    ///     final class Book {
    ///     \(ExpectedExpansion.modelState(of: "Book"))
    ///         required init(_$modelState: Cairn._ModelState, _$constants: Cairn._ConstantFields) { … }
    ///     }
    ///     """
    /// ```
    static func modelState(_ access: String = "", of className: String) -> String {
        """
            @exclusivity(unchecked) \(access)var _$modelState = Cairn._ModelState()

            \(access)static let _$modelStateOffset = Cairn._modelStateOffset(of: \(className).self)
        """
    }

    /// The accessors `@_PersistedProperty(index)` gives the property `name` (written `identifier`
    /// in code, with backticks when it needs them), at accessor depth in an expanded source (eight
    /// spaces in): its `init`, `get`, `set` and `_modify`.
    ///
    /// ```swift
    /// expandedSource: """
    ///     final class Book {
    ///         var title: String {
    ///     \(ExpectedExpansion.persistedAccessors("title", 2))
    ///         }
    ///     }
    ///     """
    /// ```
    ///
    /// - Parameter owner: The class whose static key path the accessors use; `nil` for a class
    ///   that cannot have one (generic, or inside an extension), whose accessors use the literal.
    static func persistedAccessors(
        _ name: String, _ index: Int, identifier: String? = nil, owner: String? = "Book"
    ) -> String {
        persistedAccessors(name, index: "\(index)", identifier: identifier, owner: owner)
    }

    /// The accessors of a property whose index is an expression (a subclass's, `Dog._$firstIndex_Dog + 0`).
    static func persistedAccessors(
        _ name: String, index: String, identifier: String? = nil, owner: String? = "Book"
    ) -> String {
        let identifier = identifier ?? name
        let keyPath = owner.map { "\($0)._$keyPath_\(name)" } ?? "\\.\(identifier)"
        return #"""
                    @storageRestrictions(initializes: _$\#(name))
                    init(initialValue) {
                        _$\#(name) = Cairn._PersistedValue(initialValue)
                    }
                    get {
                        _$access(\#(keyPath), \#(index))
                        if !_$\#(name).isLoaded {
                            _$fulfill(\#(index))
                        }
                        return _$\#(name).value
                    }
                    set {
                        _$withMutation(\#(keyPath), \#(index)) {
                            let oldValue = _$\#(name).loadedValue
                            _$\#(name) = Cairn._PersistedValue(newValue)
                            _$didSet(\#(index), from: oldValue, to: newValue)
                        }
                    }
                    _modify {
                        if !_$\#(name).isLoaded {
                            _$fulfill(\#(index))
                        }
                        var value = _$\#(name).value
                        let inPlace = _$beginChange(\#(index), &_$\#(name), &value)
                        defer {
                            self.\#(identifier) = value
                            _$endChange(\#(index), inPlace)
                        }
                        yield &value
                    }
            """#
    }
}
