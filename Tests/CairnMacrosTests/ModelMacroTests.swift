import CairnMacros
import SwiftSyntaxMacroExpansion
import Testing

// The test harness drops a property's initial value once accessors replace it; the compiler keeps
// it and passes it to `init(initialValue)`. The metadata's `defaultValue:` shows it either way.

@Suite struct ModelMacroTests {
    @Test func persistsStoredPropertiesInDeclarationOrder() {
        assertExpansion(
            #"""
            @Model
            final class Book {
                @Attribute(.unique) var isbn: String
                var title: String = "Untitled"
                @Transient var cache: [String: Int] = [:]
                @Relationship(deleteRule: .cascade, inverse: \Chapter.book) var chapters: [Chapter] = []
            }
            """#,
            expandedSource: #"""
                final class Book {
                    var isbn: String {
                \#(ExpectedExpansion.persistedAccessors("isbn", 0))
                    }

                    @exclusivity(unchecked) private var _$isbn: Cairn._PersistedValue<String>

                    private static let _$keyPath_isbn = \Book.isbn
                    var title: String {
                \#(ExpectedExpansion.persistedAccessors("title", 1))
                    }

                    @exclusivity(unchecked) private var _$title: Cairn._PersistedValue<String>

                    private static let _$keyPath_title = \Book.title
                    var cache: [String: Int] = [:]
                    var chapters: [Chapter] {
                \#(ExpectedExpansion.persistedAccessors("chapters", 2))
                    }

                    @exclusivity(unchecked) private var _$chapters: Cairn._PersistedValue<[Chapter]>

                    private static let _$keyPath_chapters = \Book.chapters

                \#(ExpectedExpansion.modelState(of: "Book"))

                    required init(_$modelState: Cairn._ModelState, _$constants: Cairn._ConstantFields) {
                        self._$isbn = Cairn._PersistedValue()
                        self._$title = Cairn._PersistedValue()
                        self._$chapters = Cairn._PersistedValue()
                        self._$modelState = _$modelState
                    }

                    static var schemaMetadata: [Cairn.Schema.PropertyMetadata] {
                        [
                            Cairn.Schema.PropertyMetadata(name: "isbn", keyPath: \Book.isbn, storage: \Book._$isbn, index: 0, attribute: Cairn.Schema.AttributeMetadata(options: [.unique], originalName: nil, hashModifier: nil)),
                            Cairn.Schema.PropertyMetadata(name: "title", keyPath: \Book.title, storage: \Book._$title, index: 1, defaultValue: "Untitled", attribute: nil),
                            Cairn.Schema.PropertyMetadata(transient: "cache", keyPath: \Book.cache),
                            Cairn.Schema.PropertyMetadata(name: "chapters", keyPath: \Book.chapters, storage: \Book._$chapters, index: 2, defaultValue: [], relationship: Cairn.Schema.RelationshipMetadata(options: [], deleteRule: .cascade, minimumModelCount: 0, maximumModelCount: 0, originalName: nil, inverse: \Chapter.book, hashModifier: nil)),
                        ]
                    }

                    func _$encodeFields(into encoder: inout Cairn._FieldEncoder) throws(Cairn._FieldCodingError) {
                        try encoder.encode(&_$isbn, 0)
                        try encoder.encode(&_$title, 1)
                        try encoder.encode(&_$chapters, 2)
                    }

                    func _$decodeFields(from decoder: inout Cairn._FieldDecoder) throws(Cairn._FieldCodingError) {
                        try decoder.decode(&_$isbn, 0)
                        try decoder.decode(&_$title, 1)
                        try decoder.decode(&_$chapters, 2)
                    }
                }

                extension Book: Cairn.PersistentModel {
                }

                extension Book: Observation.Observable {
                }
                """#
        )
    }

    /// A `let` keeps no accessors and no storage: the fault initialiser gives it the stored
    /// value, and the encoder writes a copy of it.
    @Test func letIsPersistedThroughTheFaultInitialiser() {
        assertExpansion(
            #"""
            @Model
            final class Ledger {
                @Attribute(.unique) let number: String
                var title: String
                let opened: Date
            }
            """#,
            expandedSource: #"""
                final class Ledger {
                    let number: String
                    var title: String {
                \#(ExpectedExpansion.persistedAccessors("title", 1, owner: "Ledger"))
                    }

                    @exclusivity(unchecked) private var _$title: Cairn._PersistedValue<String>

                    private static let _$keyPath_title = \Ledger.title
                    let opened: Date

                \#(ExpectedExpansion.modelState(of: "Ledger"))

                    required init(_$modelState: Cairn._ModelState, _$constants: Cairn._ConstantFields) {
                        self.number = _$constants.value(0)
                        self._$title = Cairn._PersistedValue()
                        self.opened = _$constants.value(2)
                        self._$modelState = _$modelState
                    }

                    static var schemaMetadata: [Cairn.Schema.PropertyMetadata] {
                        [
                            Cairn.Schema.PropertyMetadata(name: "number", constant: \Ledger.number, index: 0, attribute: Cairn.Schema.AttributeMetadata(options: [.unique], originalName: nil, hashModifier: nil)),
                            Cairn.Schema.PropertyMetadata(name: "title", keyPath: \Ledger.title, storage: \Ledger._$title, index: 1, attribute: nil),
                            Cairn.Schema.PropertyMetadata(name: "opened", constant: \Ledger.opened, index: 2, attribute: nil),
                        ]
                    }

                    func _$encodeFields(into encoder: inout Cairn._FieldEncoder) throws(Cairn._FieldCodingError) {
                        do {
                            var value = Cairn._PersistedValue(self.number)
                            try encoder.encode(&value, 0)
                        }
                        try encoder.encode(&_$title, 1)
                        do {
                            var value = Cairn._PersistedValue(self.opened)
                            try encoder.encode(&value, 2)
                        }
                    }

                    func _$decodeFields(from decoder: inout Cairn._FieldDecoder) throws(Cairn._FieldCodingError) {
                        try decoder.decode(&_$title, 1)
                    }
                }

                extension Ledger: Cairn.PersistentModel {
                }

                extension Ledger: Observation.Observable {
                }
                """#
        )
    }

    /// A transformable attribute has its own metadata initialiser (its type needs not be Codable)
    /// and codec calls that always go through its transformer.
    @Test func transformableAttributeIsStoredThroughItsTransformer() {
        assertExpansion(
            #"""
            @Model
            final class Book {
                @Attribute(.transformable(by: ColorTransformer.self)) var tint: Color
            }
            """#,
            expandedSource: #"""
                final class Book {
                    var tint: Color {
                \#(ExpectedExpansion.persistedAccessors("tint", 0))
                    }

                    @exclusivity(unchecked) private var _$tint: Cairn._PersistedValue<Color>

                    private static let _$keyPath_tint = \Book.tint

                \#(ExpectedExpansion.modelState(of: "Book"))

                    required init(_$modelState: Cairn._ModelState, _$constants: Cairn._ConstantFields) {
                        self._$tint = Cairn._PersistedValue()
                        self._$modelState = _$modelState
                    }

                    static var schemaMetadata: [Cairn.Schema.PropertyMetadata] {
                        [
                            Cairn.Schema.PropertyMetadata(name: "tint", keyPath: \Book.tint, storage: \Book._$tint, index: 0, transformable: Cairn.Schema.AttributeMetadata(options: [.transformable(by: ColorTransformer.self)], originalName: nil, hashModifier: nil)),
                        ]
                    }

                    func _$encodeFields(into encoder: inout Cairn._FieldEncoder) throws(Cairn._FieldCodingError) {
                        try encoder.encode(transformed: &_$tint, 0)
                    }

                    func _$decodeFields(from decoder: inout Cairn._FieldDecoder) throws(Cairn._FieldCodingError) {
                        try decoder.decode(transformed: &_$tint, 0)
                    }
                }

                extension Book: Cairn.PersistentModel {
                }

                extension Book: Observation.Observable {
                }
                """#
        )
    }

    /// A model that inherits from a model keeps its superclass's state and numbers its own
    /// properties after its superclass's; its metadata adds to its superclass's, rooted at
    /// whichever class is described. (The test harness lists every conformance; the compiler
    /// lists none for a subclass, which has its superclass's.)
    @Test func subclassAddsToItsSuperclass() {
        assertExpansion(
            #"""
            @Model
            class Dog: Animal {
                var breed: String
                init(name: String, breed: String) {
                    self.breed = breed
                    super.init(name: name)
                }
            }
            """#,
            expandedSource: #"""
                class Dog: Animal {
                    var breed: String {
                \#(ExpectedExpansion.persistedAccessors("breed", index: "Dog._$firstIndex_Dog + 0", owner: "Dog"))
                    }

                    @exclusivity(unchecked) private var _$breed: Cairn._PersistedValue<String>

                    private static let _$keyPath_breed = \Dog.breed
                    init(name: String, breed: String) {
                        self.breed = breed
                        super.init(name: name)
                    }

                    static let _$firstIndex_Dog = Cairn._persistedPropertyCount(of: Animal.self)

                    required init(_$modelState: Cairn._ModelState, _$constants: Cairn._ConstantFields) {
                        self._$breed = Cairn._PersistedValue()
                        super.init(_$modelState: _$modelState, _$constants: _$constants)
                    }

                    override class var schemaMetadata: [Cairn.Schema.PropertyMetadata] {
                        _$schemaMetadata_Dog(rootedAt: self)
                    }

                    class func _$schemaMetadata_Dog<Root: Dog>(rootedAt root: Root.Type) -> [Cairn.Schema.PropertyMetadata] {
                        _$schemaMetadata_Animal(rootedAt: root) + [
                            Cairn.Schema.PropertyMetadata(name: "breed", keyPath: \Root.breed, storage: \Root._$breed, index: Dog._$firstIndex_Dog + 0, attribute: nil),
                        ]
                    }

                    override func _$encodeFields(into encoder: inout Cairn._FieldEncoder) throws(Cairn._FieldCodingError) {
                        try super._$encodeFields(into: &encoder)
                        try encoder.encode(&_$breed, Dog._$firstIndex_Dog + 0)
                    }

                    override func _$decodeFields(from decoder: inout Cairn._FieldDecoder) throws(Cairn._FieldCodingError) {
                        try super._$decodeFields(from: &decoder)
                        try decoder.decode(&_$breed, Dog._$firstIndex_Dog + 0)
                    }
                }

                extension Dog: Cairn.PersistentModel {
                }

                extension Dog: Observation.Observable {
                }
                """#
        )
    }

    @Test func everyAttributeTypeIsPersisted() {
        assertExpansion(
            #"""
            enum Status: String, Codable {
                case draft, published
            }
            struct Address: Codable {
                var street: String
            }
            @Model
            final class Specimen {
                var flag: Bool
                var int: Int
                var int8: Int8
                var int16: Int16
                var int32: Int32
                var int64: Int64
                var uint: UInt
                var uint8: UInt8
                var uint16: UInt16
                var uint32: UInt32
                var uint64: UInt64
                var float: Float
                var double: Double
                var decimal: Decimal
                var string: String
                var date: Date
                var data: Data
                var uuid: UUID
                var url: URL
                var nickname: String?
                var rating: Double? = nil
                var status: Status = .draft
                var address: Address = Address(street: "")
                var tags: [String] = []
                var counts: [String: Int] = [:]
            }
            """#,
            expandedSource: #"""
                enum Status: String, Codable {
                    case draft, published
                }
                struct Address: Codable {
                    var street: String
                }
                final class Specimen {
                    @_PersistedProperty(0)
                    var flag: Bool
                    @_PersistedProperty(1)
                    var int: Int
                    @_PersistedProperty(2)
                    var int8: Int8
                    @_PersistedProperty(3)
                    var int16: Int16
                    @_PersistedProperty(4)
                    var int32: Int32
                    @_PersistedProperty(5)
                    var int64: Int64
                    @_PersistedProperty(6)
                    var uint: UInt
                    @_PersistedProperty(7)
                    var uint8: UInt8
                    @_PersistedProperty(8)
                    var uint16: UInt16
                    @_PersistedProperty(9)
                    var uint32: UInt32
                    @_PersistedProperty(10)
                    var uint64: UInt64
                    @_PersistedProperty(11)
                    var float: Float
                    @_PersistedProperty(12)
                    var double: Double
                    @_PersistedProperty(13)
                    var decimal: Decimal
                    @_PersistedProperty(14)
                    var string: String
                    @_PersistedProperty(15)
                    var date: Date
                    @_PersistedProperty(16)
                    var data: Data
                    @_PersistedProperty(17)
                    var uuid: UUID
                    @_PersistedProperty(18)
                    var url: URL
                    @_PersistedProperty(19)
                    var nickname: String?
                    @_PersistedProperty(20)
                    var rating: Double? = nil
                    @_PersistedProperty(21)
                    var status: Status = .draft
                    @_PersistedProperty(22)
                    var address: Address = Address(street: "")
                    @_PersistedProperty(23)
                    var tags: [String] = []
                    @_PersistedProperty(24)
                    var counts: [String: Int] = [:]

                \#(ExpectedExpansion.modelState(of: "Specimen"))

                    required init(_$modelState: Cairn._ModelState, _$constants: Cairn._ConstantFields) {
                        self._$flag = Cairn._PersistedValue()
                        self._$int = Cairn._PersistedValue()
                        self._$int8 = Cairn._PersistedValue()
                        self._$int16 = Cairn._PersistedValue()
                        self._$int32 = Cairn._PersistedValue()
                        self._$int64 = Cairn._PersistedValue()
                        self._$uint = Cairn._PersistedValue()
                        self._$uint8 = Cairn._PersistedValue()
                        self._$uint16 = Cairn._PersistedValue()
                        self._$uint32 = Cairn._PersistedValue()
                        self._$uint64 = Cairn._PersistedValue()
                        self._$float = Cairn._PersistedValue()
                        self._$double = Cairn._PersistedValue()
                        self._$decimal = Cairn._PersistedValue()
                        self._$string = Cairn._PersistedValue()
                        self._$date = Cairn._PersistedValue()
                        self._$data = Cairn._PersistedValue()
                        self._$uuid = Cairn._PersistedValue()
                        self._$url = Cairn._PersistedValue()
                        self._$nickname = Cairn._PersistedValue()
                        self._$rating = Cairn._PersistedValue()
                        self._$status = Cairn._PersistedValue()
                        self._$address = Cairn._PersistedValue()
                        self._$tags = Cairn._PersistedValue()
                        self._$counts = Cairn._PersistedValue()
                        self._$modelState = _$modelState
                    }

                    static var schemaMetadata: [Cairn.Schema.PropertyMetadata] {
                        [
                            Cairn.Schema.PropertyMetadata(name: "flag", keyPath: \Specimen.flag, storage: \Specimen._$flag, index: 0, attribute: nil),
                            Cairn.Schema.PropertyMetadata(name: "int", keyPath: \Specimen.int, storage: \Specimen._$int, index: 1, attribute: nil),
                            Cairn.Schema.PropertyMetadata(name: "int8", keyPath: \Specimen.int8, storage: \Specimen._$int8, index: 2, attribute: nil),
                            Cairn.Schema.PropertyMetadata(name: "int16", keyPath: \Specimen.int16, storage: \Specimen._$int16, index: 3, attribute: nil),
                            Cairn.Schema.PropertyMetadata(name: "int32", keyPath: \Specimen.int32, storage: \Specimen._$int32, index: 4, attribute: nil),
                            Cairn.Schema.PropertyMetadata(name: "int64", keyPath: \Specimen.int64, storage: \Specimen._$int64, index: 5, attribute: nil),
                            Cairn.Schema.PropertyMetadata(name: "uint", keyPath: \Specimen.uint, storage: \Specimen._$uint, index: 6, attribute: nil),
                            Cairn.Schema.PropertyMetadata(name: "uint8", keyPath: \Specimen.uint8, storage: \Specimen._$uint8, index: 7, attribute: nil),
                            Cairn.Schema.PropertyMetadata(name: "uint16", keyPath: \Specimen.uint16, storage: \Specimen._$uint16, index: 8, attribute: nil),
                            Cairn.Schema.PropertyMetadata(name: "uint32", keyPath: \Specimen.uint32, storage: \Specimen._$uint32, index: 9, attribute: nil),
                            Cairn.Schema.PropertyMetadata(name: "uint64", keyPath: \Specimen.uint64, storage: \Specimen._$uint64, index: 10, attribute: nil),
                            Cairn.Schema.PropertyMetadata(name: "float", keyPath: \Specimen.float, storage: \Specimen._$float, index: 11, attribute: nil),
                            Cairn.Schema.PropertyMetadata(name: "double", keyPath: \Specimen.double, storage: \Specimen._$double, index: 12, attribute: nil),
                            Cairn.Schema.PropertyMetadata(name: "decimal", keyPath: \Specimen.decimal, storage: \Specimen._$decimal, index: 13, attribute: nil),
                            Cairn.Schema.PropertyMetadata(name: "string", keyPath: \Specimen.string, storage: \Specimen._$string, index: 14, attribute: nil),
                            Cairn.Schema.PropertyMetadata(name: "date", keyPath: \Specimen.date, storage: \Specimen._$date, index: 15, attribute: nil),
                            Cairn.Schema.PropertyMetadata(name: "data", keyPath: \Specimen.data, storage: \Specimen._$data, index: 16, attribute: nil),
                            Cairn.Schema.PropertyMetadata(name: "uuid", keyPath: \Specimen.uuid, storage: \Specimen._$uuid, index: 17, attribute: nil),
                            Cairn.Schema.PropertyMetadata(name: "url", keyPath: \Specimen.url, storage: \Specimen._$url, index: 18, attribute: nil),
                            Cairn.Schema.PropertyMetadata(name: "nickname", keyPath: \Specimen.nickname, storage: \Specimen._$nickname, index: 19, attribute: nil),
                            Cairn.Schema.PropertyMetadata(name: "rating", keyPath: \Specimen.rating, storage: \Specimen._$rating, index: 20, defaultValue: nil, attribute: nil),
                            Cairn.Schema.PropertyMetadata(name: "status", keyPath: \Specimen.status, storage: \Specimen._$status, index: 21, defaultValue: .draft, attribute: nil),
                            Cairn.Schema.PropertyMetadata(name: "address", keyPath: \Specimen.address, storage: \Specimen._$address, index: 22, defaultValue: Address(street: ""), attribute: nil),
                            Cairn.Schema.PropertyMetadata(name: "tags", keyPath: \Specimen.tags, storage: \Specimen._$tags, index: 23, defaultValue: [], attribute: nil),
                            Cairn.Schema.PropertyMetadata(name: "counts", keyPath: \Specimen.counts, storage: \Specimen._$counts, index: 24, defaultValue: [:], attribute: nil),
                        ]
                    }

                    func _$encodeFields(into encoder: inout Cairn._FieldEncoder) throws(Cairn._FieldCodingError) {
                        try encoder.encode(&_$flag, 0)
                        try encoder.encode(&_$int, 1)
                        try encoder.encode(&_$int8, 2)
                        try encoder.encode(&_$int16, 3)
                        try encoder.encode(&_$int32, 4)
                        try encoder.encode(&_$int64, 5)
                        try encoder.encode(&_$uint, 6)
                        try encoder.encode(&_$uint8, 7)
                        try encoder.encode(&_$uint16, 8)
                        try encoder.encode(&_$uint32, 9)
                        try encoder.encode(&_$uint64, 10)
                        try encoder.encode(&_$float, 11)
                        try encoder.encode(&_$double, 12)
                        try encoder.encode(&_$decimal, 13)
                        try encoder.encode(&_$string, 14)
                        try encoder.encode(&_$date, 15)
                        try encoder.encode(&_$data, 16)
                        try encoder.encode(&_$uuid, 17)
                        try encoder.encode(&_$url, 18)
                        try encoder.encode(&_$nickname, 19)
                        try encoder.encode(&_$rating, 20)
                        try encoder.encode(&_$status, 21)
                        try encoder.encode(&_$address, 22)
                        try encoder.encode(&_$tags, 23)
                        try encoder.encode(&_$counts, 24)
                    }

                    func _$decodeFields(from decoder: inout Cairn._FieldDecoder) throws(Cairn._FieldCodingError) {
                        try decoder.decode(&_$flag, 0)
                        try decoder.decode(&_$int, 1)
                        try decoder.decode(&_$int8, 2)
                        try decoder.decode(&_$int16, 3)
                        try decoder.decode(&_$int32, 4)
                        try decoder.decode(&_$int64, 5)
                        try decoder.decode(&_$uint, 6)
                        try decoder.decode(&_$uint8, 7)
                        try decoder.decode(&_$uint16, 8)
                        try decoder.decode(&_$uint32, 9)
                        try decoder.decode(&_$uint64, 10)
                        try decoder.decode(&_$float, 11)
                        try decoder.decode(&_$double, 12)
                        try decoder.decode(&_$decimal, 13)
                        try decoder.decode(&_$string, 14)
                        try decoder.decode(&_$date, 15)
                        try decoder.decode(&_$data, 16)
                        try decoder.decode(&_$uuid, 17)
                        try decoder.decode(&_$url, 18)
                        try decoder.decode(&_$nickname, 19)
                        try decoder.decode(&_$rating, 20)
                        try decoder.decode(&_$status, 21)
                        try decoder.decode(&_$address, 22)
                        try decoder.decode(&_$tags, 23)
                        try decoder.decode(&_$counts, 24)
                    }
                }

                extension Specimen: Cairn.PersistentModel {
                }

                extension Specimen: Observation.Observable {
                }
                """#,
            macros: CairnMacroSpecs.withoutPersistedProperty
        )
    }

    @Test func userInitializerIsKept() {
        assertExpansion(
            #"""
            @Model
            final class Reader {
                var name: String
                var joined: Date = .now

                init(name: String) {
                    self.name = name
                }
            }
            """#,
            expandedSource: #"""
                final class Reader {
                    @_PersistedProperty(0)
                    var name: String
                    @_PersistedProperty(1)
                    var joined: Date = .now

                    init(name: String) {
                        self.name = name
                    }

                \#(ExpectedExpansion.modelState(of: "Reader"))

                    required init(_$modelState: Cairn._ModelState, _$constants: Cairn._ConstantFields) {
                        self._$name = Cairn._PersistedValue()
                        self._$joined = Cairn._PersistedValue()
                        self._$modelState = _$modelState
                    }

                    static var schemaMetadata: [Cairn.Schema.PropertyMetadata] {
                        [
                            Cairn.Schema.PropertyMetadata(name: "name", keyPath: \Reader.name, storage: \Reader._$name, index: 0, attribute: nil),
                            Cairn.Schema.PropertyMetadata(name: "joined", keyPath: \Reader.joined, storage: \Reader._$joined, index: 1, defaultValue: .now, attribute: nil),
                        ]
                    }

                    func _$encodeFields(into encoder: inout Cairn._FieldEncoder) throws(Cairn._FieldCodingError) {
                        try encoder.encode(&_$name, 0)
                        try encoder.encode(&_$joined, 1)
                    }

                    func _$decodeFields(from decoder: inout Cairn._FieldDecoder) throws(Cairn._FieldCodingError) {
                        try decoder.decode(&_$name, 0)
                        try decoder.decode(&_$joined, 1)
                    }
                }

                extension Reader: Cairn.PersistentModel {
                }

                extension Reader: Observation.Observable {
                }
                """#,
            macros: CairnMacroSpecs.withoutPersistedProperty
        )
    }

    @Test func publicModelGetsPublicMembers() {
        assertExpansion(
            #"""
            @Model
            public final class Shelf {
                public var label: String = ""
                #Unique<Shelf>([\.label])
                #Index<Shelf>([\.label])
            }
            """#,
            expandedSource: #"""
                public final class Shelf {
                    @_PersistedProperty(0)
                    public var label: String = ""
                    public static var _$uniquenessConstraints: [[AnyKeyPath]] {
                        [[\Shelf.label]]
                    }
                    public static var _$indices: [[AnyKeyPath]] {
                        [[\Shelf.label]]
                    }

                \#(ExpectedExpansion.modelState("public ", of: "Shelf"))

                    public required init(_$modelState: Cairn._ModelState, _$constants: Cairn._ConstantFields) {
                        self._$label = Cairn._PersistedValue()
                        self._$modelState = _$modelState
                    }

                    public static var schemaMetadata: [Cairn.Schema.PropertyMetadata] {
                        [
                            Cairn.Schema.PropertyMetadata(name: "label", keyPath: \Shelf.label, storage: \Shelf._$label, index: 0, defaultValue: "", attribute: nil),
                        ]
                    }

                    public func _$encodeFields(into encoder: inout Cairn._FieldEncoder) throws(Cairn._FieldCodingError) {
                        try encoder.encode(&_$label, 0)
                    }

                    public func _$decodeFields(from decoder: inout Cairn._FieldDecoder) throws(Cairn._FieldCodingError) {
                        try decoder.decode(&_$label, 0)
                    }
                }

                extension Shelf: Cairn.PersistentModel {
                }

                extension Shelf: Observation.Observable {
                }
                """#,
            macros: CairnMacroSpecs.withoutPersistedProperty
        )
    }

    @Test func packageModelGetsPackageMembers() {
        assertExpansion(
            #"""
            @Model
            package final class Shelf {
                var label: String = ""
            }
            """#,
            expandedSource: #"""
                package final class Shelf {
                    @_PersistedProperty(0)
                    var label: String = ""

                \#(ExpectedExpansion.modelState("package ", of: "Shelf"))

                    package required init(_$modelState: Cairn._ModelState, _$constants: Cairn._ConstantFields) {
                        self._$label = Cairn._PersistedValue()
                        self._$modelState = _$modelState
                    }

                    package static var schemaMetadata: [Cairn.Schema.PropertyMetadata] {
                        [
                            Cairn.Schema.PropertyMetadata(name: "label", keyPath: \Shelf.label, storage: \Shelf._$label, index: 0, defaultValue: "", attribute: nil),
                        ]
                    }

                    package func _$encodeFields(into encoder: inout Cairn._FieldEncoder) throws(Cairn._FieldCodingError) {
                        try encoder.encode(&_$label, 0)
                    }

                    package func _$decodeFields(from decoder: inout Cairn._FieldDecoder) throws(Cairn._FieldCodingError) {
                        try decoder.decode(&_$label, 0)
                    }
                }

                extension Shelf: Cairn.PersistentModel {
                }

                extension Shelf: Observation.Observable {
                }
                """#,
            macros: CairnMacroSpecs.withoutPersistedProperty
        )
    }

    @Test func leavesNonStoredMembersUntouched() {
        assertExpansion(
            #"""
            @Model
            final class Note {
                static var count = 0
                class var kind: String { "note" }
                var text: String
                var length: Int { text.count }
                var shouted: String {
                    get { text.uppercased() }
                    set { text = newValue.lowercased() }
                }
                func clear() {
                    text = ""
                }
                enum Style {
                    case plain
                }
            }
            """#,
            expandedSource: #"""
                final class Note {
                    static var count = 0
                    class var kind: String { "note" }
                    @_PersistedProperty(0)
                    var text: String
                    var length: Int { text.count }
                    var shouted: String {
                        get { text.uppercased() }
                        set { text = newValue.lowercased() }
                    }
                    func clear() {
                        text = ""
                    }
                    enum Style {
                        case plain
                    }

                \#(ExpectedExpansion.modelState(of: "Note"))

                    required init(_$modelState: Cairn._ModelState, _$constants: Cairn._ConstantFields) {
                        self._$text = Cairn._PersistedValue()
                        self._$modelState = _$modelState
                    }

                    static var schemaMetadata: [Cairn.Schema.PropertyMetadata] {
                        [
                            Cairn.Schema.PropertyMetadata(name: "text", keyPath: \Note.text, storage: \Note._$text, index: 0, attribute: nil),
                        ]
                    }

                    func _$encodeFields(into encoder: inout Cairn._FieldEncoder) throws(Cairn._FieldCodingError) {
                        try encoder.encode(&_$text, 0)
                    }

                    func _$decodeFields(from decoder: inout Cairn._FieldDecoder) throws(Cairn._FieldCodingError) {
                        try decoder.decode(&_$text, 0)
                    }
                }

                extension Note: Cairn.PersistentModel {
                }

                extension Note: Observation.Observable {
                }
                """#,
            macros: CairnMacroSpecs.withoutPersistedProperty
        )
    }

    @Test func emptyModelHasEmptyMetadata() {
        assertExpansion(
            """
            @Model
            final class Marker {}
            """,
            expandedSource: """
                final class Marker {

                \(ExpectedExpansion.modelState(of: "Marker"))

                    required init(_$modelState: Cairn._ModelState, _$constants: Cairn._ConstantFields) {
                        self._$modelState = _$modelState
                    }

                    static var schemaMetadata: [Cairn.Schema.PropertyMetadata] {
                        []
                    }

                    func _$encodeFields(into encoder: inout Cairn._FieldEncoder) throws(Cairn._FieldCodingError) {
                    }

                    func _$decodeFields(from decoder: inout Cairn._FieldDecoder) throws(Cairn._FieldCodingError) {
                    }
                }

                extension Marker: Cairn.PersistentModel {
                }

                extension Marker: Observation.Observable {
                }
                """
        )
    }

    @Test func availabilityCarriesOverToConformances() {
        assertExpansion(
            """
            @available(macOS 15, *)
            @Model
            final class Marker {}
            """,
            expandedSource: """
                @available(macOS 15, *)
                final class Marker {

                \(ExpectedExpansion.modelState(of: "Marker"))

                    required init(_$modelState: Cairn._ModelState, _$constants: Cairn._ConstantFields) {
                        self._$modelState = _$modelState
                    }

                    static var schemaMetadata: [Cairn.Schema.PropertyMetadata] {
                        []
                    }

                    func _$encodeFields(into encoder: inout Cairn._FieldEncoder) throws(Cairn._FieldCodingError) {
                    }

                    func _$decodeFields(from decoder: inout Cairn._FieldDecoder) throws(Cairn._FieldCodingError) {
                    }
                }

                @available(macOS 15, *)
                extension Marker: Cairn.PersistentModel {
                }

                @available(macOS 15, *)
                extension Marker: Observation.Observable {
                }
                """
        )
    }

    @Test func conformancesTheClassAlreadyHasAreNotRepeated() {
        var macros = CairnMacroSpecs.all
        // The compiler lists only the conformances the class lacks; here it already is `Observable`.
        macros["Model"] = MacroSpec(type: ModelMacro.self, conformances: ["PersistentModel"])
        assertExpansion(
            """
            @Model
            final class Marker: Observable {}
            """,
            expandedSource: """
                final class Marker: Observable {

                \(ExpectedExpansion.modelState(of: "Marker"))

                    required init(_$modelState: Cairn._ModelState, _$constants: Cairn._ConstantFields) {
                        self._$modelState = _$modelState
                    }

                    static var schemaMetadata: [Cairn.Schema.PropertyMetadata] {
                        []
                    }

                    func _$encodeFields(into encoder: inout Cairn._FieldEncoder) throws(Cairn._FieldCodingError) {
                    }

                    func _$decodeFields(from decoder: inout Cairn._FieldDecoder) throws(Cairn._FieldCodingError) {
                    }
                }

                extension Marker: Cairn.PersistentModel {
                }
                """,
            macros: macros
        )
    }
}
