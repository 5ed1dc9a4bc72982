// swift-tools-version: 6.1
import CompilerPluginSupport
import PackageDescription

let package = Package(
    name: "Cairn",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    products: [
        .library(name: "Cairn", targets: ["Cairn"]),
        // Sync through a server: the engine and its transports. The server is its own package
        // (Server/), so an app that depends on Cairn builds no web server.
        .library(name: "CairnSync", targets: ["CairnSync"]),
        // The sync protocol's messages, which the server shares.
        .library(name: "CairnSyncProtocol", targets: ["CairnSyncProtocol"]),
        .executable(name: "cairn", targets: ["cairn"]),
    ],
    dependencies: [
        .package(url: "https://github.com/swiftlang/swift-syntax.git", exact: "603.0.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        // Encrypted stores: key wrapping, the passphrase's key derivation (scrypt) and the sealing of
        // values where the processor has no AES instructions (CryptoKit on Apple platforms).
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/vapor/console-kit.git", from: "4.16.2"),
        // `swift package generate-documentation --target Cairn` (the DocC catalog, Sources/Cairn/Cairn.docc).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"]), .brew(["lmdb"])]
        ),
        .macro(
            name: "CairnMacros",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
            ]
        ),
        // The LMDB seam: environments, transactions, tables, storage errors and the checks that
        // keep a damaged file from taking the app down; no model types.
        .target(
            name: "CairnStorage",
            dependencies: [
                "CLMDB", "CAtomicWord", "CAESGCM",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // AES-256-GCM with the processor's AES and carry-less multiply instructions, for the values
        // of encrypted stores (see Docs/Encryption.md).
        .target(name: "CAESGCM"),
        // Atomic operations on one word, for the transaction gate (see its header).
        .target(name: "CAtomicWord"),
        // CRC-32C with the processor's instruction (SSE 4.2, ARM64 CRC32); Cairn falls back to its
        // own table-driven code where there is none.
        .target(name: "CCRC32C"),
        .target(
            name: "Cairn",
            dependencies: [
                "CairnStorage", "CairnMacros", "CCRC32C", "CairnSyncProtocol",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The sync protocol's messages and merge rule: Foundation only, shared with the server.
        .target(name: "CairnSyncProtocol"),
        .target(
            name: "CairnSync",
            dependencies: ["Cairn", "CairnSyncProtocol", .product(name: "Logging", package: "swift-log")]
        ),
        .executableTarget(
            name: "cairn",
            dependencies: [
                "Cairn",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // Progress bars on a terminal; the executable's only, never the library's.
                .product(name: "ConsoleKitTerminal", package: "console-kit"),
            ]
        ),
        // A child process for the reliability tests: it commits, acknowledges, and gets killed.
        .executableTarget(
            name: "CairnTestHelper",
            dependencies: ["Cairn", "CairnSync"],
            path: "Tests/CairnTestHelper"
        ),
        .testTarget(
            name: "CairnTests",
            dependencies: [
                "Cairn",
                "CairnSync",
                "CairnSyncProtocol",
                "CairnStorage",
                // Only for writing another program's LMDB files, which Cairn must refuse.
                "CLMDB",
                "CairnTestHelper",
                "cairn",
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "Logging", package: "swift-log"),
                // Cross-checks of the encrypted store's cipher against swift-crypto's.
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            // Stores written by earlier versions of Cairn, read by FormatFixtureTests from the source tree.
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "CairnMacrosTests",
            dependencies: [
                "CairnMacros",
                .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
