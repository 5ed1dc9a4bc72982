import CairnStorage
import Foundation

// The record codec `@Model` generates: `_$encodeFields(into:)` and `_$decodeFields(from:)` name
// every persisted property's storage in declaration order, and overload resolution in the app's
// module picks, for each property's type, one of the functions of `_FieldEncoder`
// (`FieldEncoder.swift`) and `_FieldDecoder` (`FieldDecoder.swift`). For each native value type
// (the registry, `Values/NativeValue.swift`) and its optional that is a concrete function that
// reads or writes the storage in place; for a relationship it does nothing; for any other type it
// hands the property to the attribute's general codec. A test checks that every registered type
// has its concrete pair.
//
// Writing a record through the closures kept per attribute (`AttributeAccess`) would cost two
// closure calls and two retains and releases per attribute, atomic operations that cost more
// than the encoding itself. Docs/Design.md, "Record codec".

/// The error the generated record codec throws: `StorageError`, named in `Cairn` so that the
/// generated code can spell it.
///
/// ```swift
/// func _$decodeFields(from decoder: inout Cairn._FieldDecoder) throws(Cairn._FieldCodingError)
/// ```
public typealias _FieldCodingError = StorageError
