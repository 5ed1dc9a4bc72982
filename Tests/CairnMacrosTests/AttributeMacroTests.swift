import Testing

@Suite struct AttributeMacroTests {
    @Test func everyOptionReachesTheMetadata() {
        assertExpansion(
            #"""
            @Model
            final class Document {
                @Attribute(.unique) var slug: String
                @Attribute(.externalStorage) var body: Data
                @Attribute(.ephemeral) var draftCursor: Int = 0
                @Attribute(.preserveValueOnDeletion) var deletedTitle: String = ""
                @Attribute(.spotlight) var title: String
                @Attribute(.allowsCloudEncryption) var secret: String?
                @Attribute(originalName: "created") var createdAt: Date
                @Attribute(hashModifier: "v2") var revision: Int = 1
                @Attribute(.unique, .spotlight, originalName: "name", hashModifier: "2") var handle: String
                @Attribute var plain: String = ""
            }
            """#,
            expandedSource: #"""
                final class Document {
                    @_PersistedProperty(0) var slug: String
                    @_PersistedProperty(1) var body: Data
                    @_PersistedProperty(2) var draftCursor: Int = 0
                    @_PersistedProperty(3) var deletedTitle: String = ""
                    @_PersistedProperty(4) var title: String
                    @_PersistedProperty(5) var secret: String?
                    @_PersistedProperty(6) var createdAt: Date
                    @_PersistedProperty(7) var revision: Int = 1
                    @_PersistedProperty(8) var handle: String
                    @_PersistedProperty(9) var plain: String = ""

                \#(ExpectedExpansion.modelState(of: "Document"))

                    required init(_$modelState: Cairn._ModelState, _$constants: Cairn._ConstantFields) {
                        self._$slug = Cairn._PersistedValue()
                        self._$body = Cairn._PersistedValue()
                        self._$draftCursor = Cairn._PersistedValue()
                        self._$deletedTitle = Cairn._PersistedValue()
                        self._$title = Cairn._PersistedValue()
                        self._$secret = Cairn._PersistedValue()
                        self._$createdAt = Cairn._PersistedValue()
                        self._$revision = Cairn._PersistedValue()
                        self._$handle = Cairn._PersistedValue()
                        self._$plain = Cairn._PersistedValue()
                        self._$modelState = _$modelState
                    }

                    static var schemaMetadata: [Cairn.Schema.PropertyMetadata] {
                        [
                            Cairn.Schema.PropertyMetadata(name: "slug", keyPath: \Document.slug, storage: \Document._$slug, index: 0, attribute: Cairn.Schema.AttributeMetadata(options: [.unique], originalName: nil, hashModifier: nil)),
                            Cairn.Schema.PropertyMetadata(name: "body", keyPath: \Document.body, storage: \Document._$body, index: 1, attribute: Cairn.Schema.AttributeMetadata(options: [.externalStorage], originalName: nil, hashModifier: nil)),
                            Cairn.Schema.PropertyMetadata(name: "draftCursor", keyPath: \Document.draftCursor, storage: \Document._$draftCursor, index: 2, defaultValue: 0, attribute: Cairn.Schema.AttributeMetadata(options: [.ephemeral], originalName: nil, hashModifier: nil)),
                            Cairn.Schema.PropertyMetadata(name: "deletedTitle", keyPath: \Document.deletedTitle, storage: \Document._$deletedTitle, index: 3, defaultValue: "", attribute: Cairn.Schema.AttributeMetadata(options: [.preserveValueOnDeletion], originalName: nil, hashModifier: nil)),
                            Cairn.Schema.PropertyMetadata(name: "title", keyPath: \Document.title, storage: \Document._$title, index: 4, attribute: Cairn.Schema.AttributeMetadata(options: [.spotlight], originalName: nil, hashModifier: nil)),
                            Cairn.Schema.PropertyMetadata(name: "secret", keyPath: \Document.secret, storage: \Document._$secret, index: 5, attribute: Cairn.Schema.AttributeMetadata(options: [.allowsCloudEncryption], originalName: nil, hashModifier: nil)),
                            Cairn.Schema.PropertyMetadata(name: "createdAt", keyPath: \Document.createdAt, storage: \Document._$createdAt, index: 6, attribute: Cairn.Schema.AttributeMetadata(options: [], originalName: "created", hashModifier: nil)),
                            Cairn.Schema.PropertyMetadata(name: "revision", keyPath: \Document.revision, storage: \Document._$revision, index: 7, defaultValue: 1, attribute: Cairn.Schema.AttributeMetadata(options: [], originalName: nil, hashModifier: "v2")),
                            Cairn.Schema.PropertyMetadata(name: "handle", keyPath: \Document.handle, storage: \Document._$handle, index: 8, attribute: Cairn.Schema.AttributeMetadata(options: [.unique, .spotlight], originalName: "name", hashModifier: "2")),
                            Cairn.Schema.PropertyMetadata(name: "plain", keyPath: \Document.plain, storage: \Document._$plain, index: 9, defaultValue: "", attribute: Cairn.Schema.AttributeMetadata(options: [], originalName: nil, hashModifier: nil)),
                        ]
                    }

                    func _$encodeFields(into encoder: inout Cairn._FieldEncoder) throws(Cairn._FieldCodingError) {
                        try encoder.encode(&_$slug, 0)
                        try encoder.encode(&_$body, 1)
                        try encoder.encode(&_$draftCursor, 2)
                        try encoder.encode(&_$deletedTitle, 3)
                        try encoder.encode(&_$title, 4)
                        try encoder.encode(&_$secret, 5)
                        try encoder.encode(&_$createdAt, 6)
                        try encoder.encode(&_$revision, 7)
                        try encoder.encode(&_$handle, 8)
                        try encoder.encode(&_$plain, 9)
                    }

                    func _$decodeFields(from decoder: inout Cairn._FieldDecoder) throws(Cairn._FieldCodingError) {
                        try decoder.decode(&_$slug, 0)
                        try decoder.decode(&_$body, 1)
                        try decoder.decode(&_$draftCursor, 2)
                        try decoder.decode(&_$deletedTitle, 3)
                        try decoder.decode(&_$title, 4)
                        try decoder.decode(&_$secret, 5)
                        try decoder.decode(&_$createdAt, 6)
                        try decoder.decode(&_$revision, 7)
                        try decoder.decode(&_$handle, 8)
                        try decoder.decode(&_$plain, 9)
                    }
                }

                extension Document: Cairn.PersistentModel {
                }

                extension Document: Observation.Observable {
                }
                """#,
            macros: CairnMacroSpecs.withoutPersistedProperty
        )
    }
}
