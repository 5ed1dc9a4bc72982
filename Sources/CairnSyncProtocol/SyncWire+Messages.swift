import Foundation

// The layouts of the protocol's values (SyncWire's comment lists them).

extension SyncStamp: SyncWireCodable {
    public func write(to writer: inout SyncWireWriter) {
        writer.integer(clock)
        writer.id(replica)
    }

    public init(from reader: inout SyncWireReader) throws {
        self.init(clock: try reader.integer(), replica: try reader.id())
    }
}

extension FieldValue: SyncWireCodable {
    public func write(to writer: inout SyncWireWriter) {
        switch self {
        case .null:
            writer.bytes.append(0)
        case .value(let type, let data):
            writer.bytes.append(1)
            writer.string(type)
            writer.data(data)
        case .reference(let target):
            writer.bytes.append(2)
            writer.id(target)
        case .references(let targets):
            writer.bytes.append(3)
            writer.count(targets.count)
            for target in targets { writer.id(target) }
        case .sealed(let data):
            writer.bytes.append(4)
            writer.data(data)
        }
    }

    public init(from reader: inout SyncWireReader) throws {
        switch try reader.byte() {
        case 0: self = .null
        case 1: self = .value(type: try reader.string(), data: try reader.data())
        case 2: self = .reference(try reader.id())
        case 3:
            let count = try reader.count(minimumSize: 16)
            var targets: [SyncID] = []
            targets.reserveCapacity(count)
            for _ in 0..<count { targets.append(try reader.id()) }
            self = .references(targets)
        case 4: self = .sealed(try reader.data())
        case let tag: throw SyncWireReader.malformed("a field value tagged \(tag)")
        }
    }
}

extension RowChange: SyncWireCodable {
    public func write(to writer: inout SyncWireWriter) {
        writer.string(entity)
        writer.id(id)
        writer.flag(deleted != nil)
        deleted?.write(to: &writer)
        writer.count(fields.count)
        // Sorted by name: equal rows have equal bytes.
        for (name, change) in fields.sorted(by: { $0.key < $1.key }) {
            writer.string(name)
            change.stamp.write(to: &writer)
            change.value.write(to: &writer)
        }
    }

    /// No fewer than the bytes ``write(to:)`` writes (each count taken at its longest), without
    /// writing them: what a batch is filled by.
    ///
    /// ```swift
    /// if row.wireSizeBound > SyncLimits.maximumRowBytes { print("too large to push") }
    /// ```
    public var wireSizeBound: Int {
        var size = 10 + entity.utf8.count + 16 + 1 + 24 + 10
        for (name, change) in fields {
            size += 10 + name.utf8.count + 24 + 1 + FieldValue.sealingOverhead
            switch change.value {
            case .null: break
            case .value(let type, let data): size += 20 + type.utf8.count + data.count
            case .reference: size += 16
            case .references(let targets): size += 10 + 16 * targets.count
            case .sealed(let data): size += 10 + data.count
            }
        }
        return size
    }

    public init(from reader: inout SyncWireReader) throws {
        let entity = try reader.string()
        let id = try reader.id()
        let deleted = try reader.flag() ? try SyncStamp(from: &reader) : nil
        let count = try reader.count(minimumSize: 26)
        var fields: [String: FieldChange] = [:]
        fields.reserveCapacity(count)
        for _ in 0..<count {
            let name = try reader.string()
            let stamp = try SyncStamp(from: &reader)
            guard fields.updateValue(FieldChange(stamp: stamp, value: try FieldValue(from: &reader)), forKey: name) == nil else {
                throw SyncWireReader.malformed("the field \(name) twice in one row")
            }
        }
        self.init(entity: entity, id: id, fields: fields, deleted: deleted)
    }
}

extension ChangeBatch: SyncWireCodable {
    public func write(to writer: inout SyncWireWriter) {
        writer.id(id)
        writer.id(replica)
        writer.list(rows)
    }

    public init(from reader: inout SyncWireReader) throws {
        let id = try reader.id()
        let replica = try reader.id()
        self.init(id: id, replica: replica, rows: try reader.list(of: RowChange.self, minimumSize: 18))
    }
}

extension StoredBatch: SyncWireCodable {
    public func write(to writer: inout SyncWireWriter) {
        writer.integer(position)
        batch.write(to: &writer)
    }

    public init(from reader: inout SyncWireReader) throws {
        self.init(position: try reader.integer(), batch: try ChangeBatch(from: &reader))
    }
}

extension ChangesPage: SyncWireCodable {
    public func write(to writer: inout SyncWireWriter) {
        writer.integer(position)
        writer.flag(more)
        writer.list(batches)
    }

    public init(from reader: inout SyncWireReader) throws {
        let position: Int64 = try reader.integer()
        let more = try reader.flag()
        self.init(batches: try reader.list(of: StoredBatch.self, minimumSize: 41), position: position, more: more)
    }
}

extension SnapshotPage: SyncWireCodable {
    public func write(to writer: inout SyncWireWriter) {
        writer.integer(position)
        writer.flag(more)
        writer.list(rows)
    }

    public init(from reader: inout SyncWireReader) throws {
        let position: Int64 = try reader.integer()
        let more = try reader.flag()
        self.init(rows: try reader.list(of: RowChange.self, minimumSize: 18), position: position, more: more)
    }
}

extension PushResult: SyncWireCodable {
    public func write(to writer: inout SyncWireWriter) {
        writer.integer(position)
        writer.flag(duplicate)
    }

    public init(from reader: inout SyncWireReader) throws {
        self.init(position: try reader.integer(), duplicate: try reader.flag())
    }
}
