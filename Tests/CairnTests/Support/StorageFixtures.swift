@testable import Cairn

/// A new store in a temporary directory, with the directory kept alive alongside it.
struct TemporaryStore {
    let directory: TemporaryDirectory
    let environment: LMDBEnvironment

    init(_ label: String = #function, configure: (inout StorageConfiguration) -> Void = { _ in }) throws {
        directory = TemporaryDirectory(label)
        var configuration = StorageConfiguration(path: directory.child("store"))
        configure(&configuration)
        environment = try LMDBEnvironment.create(configuration)
    }

    var path: String { environment.path }

    func table(_ name: String = "t", flags: TableFlags = []) throws -> Table {
        try environment.openTable(name, flags: flags, create: true)!
    }
}

/// An 8-byte big-endian key, so byte order is numeric order.
func key(_ n: Int) -> [UInt8] {
    withUnsafeBytes(of: UInt64(n).bigEndian) { Array($0) }
}

func number(_ bytes: some Collection<UInt8>) -> Int {
    Int(bytes.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
}
