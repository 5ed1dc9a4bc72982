import Testing

@Suite struct PersistedPropertyMacroTests {
    @Test func accessorsGoThroughTheStoragePeer() {
        assertExpansion(
            """
            final class Book {
                @_PersistedProperty(2)
                var title: String = "Untitled"
            }
            """,
            expandedSource: #"""
                final class Book {
                    var title: String {
                        @storageRestrictions(initializes: _$title)
                        init(initialValue) {
                            _$title = Cairn._PersistedValue(initialValue)
                        }
                        get {
                            _$modelState.access(self, keyPath: \.title, 2)
                            if !_$title.isLoaded {
                                _$fulfill(2)
                            }
                            return _$title.value
                        }
                        set {
                            _$modelState.withMutation(of: self, keyPath: \.title, 2) {
                                let oldValue = _$title.loadedValue
                                _$title = Cairn._PersistedValue(newValue)
                                _$didSet(2, from: oldValue, to: newValue)
                            }
                        }
                        _modify {
                            if !_$title.isLoaded {
                                _$fulfill(2)
                            }
                            var value = _$title.value
                            yield &value
                            self.title = value
                        }
                    }

                    @exclusivity(unchecked) private var _$title: Cairn._PersistedValue<String>
                }
                """#
        )
    }

    @Test func optionalIsStoredAsOptional() {
        assertExpansion(
            """
            final class Book {
                @_PersistedProperty(0) var subtitle: String?
                @_PersistedProperty(1) var cover: Data!
            }
            """,
            expandedSource: #"""
                final class Book {
                    var subtitle: String? {
                        @storageRestrictions(initializes: _$subtitle)
                        init(initialValue) {
                            _$subtitle = Cairn._PersistedValue(initialValue)
                        }
                        get {
                            _$modelState.access(self, keyPath: \.subtitle, 0)
                            if !_$subtitle.isLoaded {
                                _$fulfill(0)
                            }
                            return _$subtitle.value
                        }
                        set {
                            _$modelState.withMutation(of: self, keyPath: \.subtitle, 0) {
                                let oldValue = _$subtitle.loadedValue
                                _$subtitle = Cairn._PersistedValue(newValue)
                                _$didSet(0, from: oldValue, to: newValue)
                            }
                        }
                        _modify {
                            if !_$subtitle.isLoaded {
                                _$fulfill(0)
                            }
                            var value = _$subtitle.value
                            yield &value
                            self.subtitle = value
                        }
                    }

                    @exclusivity(unchecked) private var _$subtitle: Cairn._PersistedValue<String?>
                    var cover: Data! {
                        @storageRestrictions(initializes: _$cover)
                        init(initialValue) {
                            _$cover = Cairn._PersistedValue(initialValue)
                        }
                        get {
                            _$modelState.access(self, keyPath: \.cover, 1)
                            if !_$cover.isLoaded {
                                _$fulfill(1)
                            }
                            return _$cover.value
                        }
                        set {
                            _$modelState.withMutation(of: self, keyPath: \.cover, 1) {
                                let oldValue = _$cover.loadedValue
                                _$cover = Cairn._PersistedValue(newValue)
                                _$didSet(1, from: oldValue, to: newValue)
                            }
                        }
                        _modify {
                            if !_$cover.isLoaded {
                                _$fulfill(1)
                            }
                            var value = _$cover.value
                            yield &value
                            self.cover = value
                        }
                    }

                    @exclusivity(unchecked) private var _$cover: Cairn._PersistedValue<Data?>
                }
                """#
        )
    }

    @Test func escapedNameKeepsItsBackticks() {
        assertExpansion(
            """
            final class Book {
                @_PersistedProperty(0) var `default`: Bool
            }
            """,
            expandedSource: #"""
                final class Book {
                    var `default`: Bool {
                        @storageRestrictions(initializes: _$default)
                        init(initialValue) {
                            _$default = Cairn._PersistedValue(initialValue)
                        }
                        get {
                            _$modelState.access(self, keyPath: \.`default`, 0)
                            if !_$default.isLoaded {
                                _$fulfill(0)
                            }
                            return _$default.value
                        }
                        set {
                            _$modelState.withMutation(of: self, keyPath: \.`default`, 0) {
                                let oldValue = _$default.loadedValue
                                _$default = Cairn._PersistedValue(newValue)
                                _$didSet(0, from: oldValue, to: newValue)
                            }
                        }
                        _modify {
                            if !_$default.isLoaded {
                                _$fulfill(0)
                            }
                            var value = _$default.value
                            yield &value
                            self.`default` = value
                        }
                    }

                    @exclusivity(unchecked) private var _$default: Cairn._PersistedValue<Bool>
                }
                """#
        )
    }
}
