// swift-tools-version: 6.1
import PackageDescription

// The sync server, in a package of its own so that an app depending on Cairn builds no web
// server: `cairn-sync-server serve --database-url postgres://… --port N`. Its tests are in
// Cairn's own suite (Tests/CairnTests/Sync/Server), which runs this executable against a real
// PostgreSQL with real replicas.
let package = Package(
    name: "CairnSyncServer",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "cairn-sync-server", targets: ["cairn-sync-server"]),
        .library(name: "CairnSyncServer", targets: ["CairnSyncServer"]),
    ],
    dependencies: [
        .package(name: "Cairn", path: ".."),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    ],
    targets: [
        .target(
            name: "CairnSyncServer",
            dependencies: [
                .product(name: "CairnSyncProtocol", package: "Cairn"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "cairn-sync-server",
            dependencies: [
                "CairnSyncServer",
                .product(name: "CairnSyncProtocol", package: "Cairn"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
