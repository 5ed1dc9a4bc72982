import Cairn
import CairnSyncProtocol
import Foundation

/// Seals the values of an end-to-end encrypted zone before they leave a replica, and opens them
/// as they arrive: the one place a zone's key is used (`Docs/Sync.md`, "End-to-end encrypted
/// zones").
///
/// Every field value of every row becomes ``FieldValue/sealed(_:)``: the key's identifier
/// (8 bytes), then the value's wire bytes sealed with AES-256-GCM (`ValueCipher`: format,
/// nonce, ciphertext, tag). The additional data binds it to the zone, the row's entity and
/// identifier, the field's name and the write's stamp, so a server that moves a value to
/// another row or field, or gives an old value a newer stamp, makes a value that does not open.
/// Entities, row identifiers, field names, stamps and deletions stay readable: the server
/// merges, orders, pages and compacts by them.
///
/// ```swift
/// let cipher = try ZoneCipher(encryption: .passphrase("family secret"), zone: "family")
/// let sent = cipher.sealed(batch)
/// let rows = try cipher.opened(page.rows)
/// ```
struct ZoneCipher: Sendable {
    let zone: String
    private let cipher: ValueCipher
    /// The first bytes of a keyed hash of the zone key: tells a value sealed with another key
    /// (a wrong key) from one changed on the way.
    private let keyID: [UInt8]
    private static let keyIDLength = FieldValue.sealingKeyIDLength

    /// The cipher of `zone` under `encryption`, derived from the secret and the zone's name, so
    /// every replica given the same secret derives the same key.
    ///
    /// - Throws: ``SyncError`` `.rejected` for a key that is not 32 bytes or an empty passphrase.
    init(encryption: ModelConfiguration.Encryption, zone: String) throws(SyncError) {
        let key: [UInt8]
        do {
            key = try encryption.secret.derivedKey(purpose: "cairn zone " + zone)
        } catch {
            throw SyncError(code: .rejected, message: "The zone key cannot be used: \(error.message)")
        }
        self.zone = zone
        cipher = ValueCipher(dataKey: key)
        keyID = Array(KeyHasher(dataKey: key).digest(of: Array("cairn zone key id".utf8)).prefix(Self.keyIDLength))
    }

    /// `batch` with every field value sealed (a new nonce each time it is sealed).
    func sealed(_ batch: ChangeBatch) -> ChangeBatch {
        var nonces = NonceSequence()
        var sealed = batch
        for index in sealed.rows.indices {
            let row = sealed.rows[index]
            for (name, change) in row.fields {
                let plaintext = SyncWire.bodyBytes(change.value)
                let aad = additionalData(row, field: name, stamp: change.stamp)
                let bytes = keyID + cipher.sealed(plaintext, additionalData: aad, nonces: &nonces)
                sealed.rows[index].fields[name] = FieldChange(stamp: change.stamp, value: .sealed(Data(bytes)))
            }
        }
        return sealed
    }

    /// `rows` with every field value opened.
    ///
    /// - Throws: ``SyncError`` `.zoneNotEncrypted` for a value in clear (a replica without the
    ///   key wrote it, or the server did), `.wrongZoneKey` for one sealed with another key,
    ///   `.tampered` for one that does not open: nothing of the page is applied.
    func opened(_ rows: [RowChange]) throws(SyncError) -> [RowChange] {
        var opened = rows
        for index in opened.indices {
            let row = opened[index]
            for (name, change) in row.fields {
                guard case .sealed(let data) = change.value else {
                    throw SyncError(
                        code: .zoneNotEncrypted,
                        message: "Zone '\(zone)' is end-to-end encrypted here, but the \(row.entity) \(row.id)'s "
                            + "'\(name)' arrived in clear: a replica without the zone key wrote it, or the server "
                            + "changed it. Nothing of it was applied. Give every replica of the zone its key.")
                }
                let value = try open(Array(data), row: row, field: name, stamp: change.stamp)
                opened[index].fields[name] = FieldChange(stamp: change.stamp, value: value)
            }
        }
        return opened
    }

    private func open(_ data: [UInt8], row: RowChange, field: String, stamp: SyncStamp) throws(SyncError) -> FieldValue {
        guard data.count >= Self.keyIDLength, data.prefix(Self.keyIDLength).elementsEqual(keyID) else {
            throw SyncError(
                code: .wrongZoneKey,
                message: "The values of zone '\(zone)' are sealed with another key than this replica's. "
                    + "Configure the key (or passphrase) the zone's other replicas use.")
        }
        let aad = additionalData(row, field: field, stamp: stamp)
        guard let plaintext = cipher.opened(data.dropFirst(Self.keyIDLength), additionalData: aad),
            let value = try? SyncWire.decodeBody(FieldValue.self, from: plaintext), !value.isSealed
        else {
            throw SyncError(
                code: .tampered,
                message: "The \(row.entity) \(row.id)'s '\(field)' in zone '\(zone)' does not open with the zone's "
                    + "key: it was changed or moved on its way from the replica that wrote it. Nothing of it was "
                    + "applied. Sync again; if it persists, the server's copy of the zone was altered: restore the "
                    + "server's database from a backup, or sync the replicas into a new zone.")
        }
        return value
    }

    /// Refuses `rows` when one holds a sealed value: this replica has no key for the zone.
    ///
    /// - Throws: ``SyncError`` `.zoneKeyRequired`.
    static func refuseSealed(_ rows: [RowChange], zone: String) throws(SyncError) {
        guard rows.contains(where: { $0.fields.values.contains { $0.value.isSealed } }) else { return }
        throw SyncError(
            code: .zoneKeyRequired,
            message: "Zone '\(zone)' is end-to-end encrypted and this replica has no key for it. Set "
                + "SyncConfiguration.encryption to the key (or passphrase) its other replicas use.")
    }

    /// What a sealed value of `field` of `row`, written at `stamp`, authenticates besides itself.
    private func additionalData(_ row: RowChange, field: String, stamp: SyncStamp) -> [UInt8] {
        var writer = SyncWireWriter()
        writer.string("cairn zone value")
        writer.string(zone)
        writer.string(row.entity)
        writer.id(row.id)
        writer.string(field)
        stamp.write(to: &writer)
        return writer.bytes
    }
}
