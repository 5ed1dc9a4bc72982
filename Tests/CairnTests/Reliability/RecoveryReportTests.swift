import Foundation
import Testing

@testable import Cairn
@testable import CairnStorage

/// What `StoreRecovery` says after a damaged meta page: it names a lost commit only when one was
/// lost, says a newer commit may have been lost when nothing can tell, and says nothing was lost
/// only when it knows.
@Suite struct RecoveryReportTests {
    typealias Offset = DataFileValidator.Offset
    let template: DamagedFileTests.Template
    let newestID: UInt64

    init() throws {
        template = try DamagedFileTests.Template()
        newestID = DataFileBytes(storage: template.bytes).uint64(at: template.newestMeta * 4096 + Offset.transactionID)
    }

    /// Bug: with the newest commit's meta page zeroed, the store opened at the commit before and
    /// reported "losing nothing", though the newest commit was gone. Fix: a page that tells
    /// nothing (no header, no readable tree) may have held the next commit, and the report says so.
    @Test func aZeroedNewestMetaPageMayHaveLostTheNewestCommit() throws {
        var bytes = template.bytes
        bytes.replaceSubrange(template.newestMeta * 4096..<(template.newestMeta + 1) * 4096, with: repeatElement(0, count: 4096))
        let opened = try template.open(bytes, case: "newest zeroed").get()
        #expect(opened.contents == template.previousContents)
        let recovery = try #require(opened.recovery)
        #expect(recovery.openedTransaction == newestID - 1)
        #expect(recovery.skippedTransaction == newestID && !recovery.lossIsCertain, "\(recovery)")
        #expect(recovery.description.contains("may have been lost") && !recovery.description.contains("losing nothing"))
    }

    /// Bug: with the older meta page overwritten by garbage whose transaction id is larger, the
    /// report named that id as a commit "damaged and skipped", though nothing was lost. Fix: an id
    /// on a page whose header is garbage is not believed; the report says a commit may have been
    /// lost, never that one was.
    @Test func anOlderMetaPageOverwrittenWithALargerIdClaimsNoCertainLoss() throws {
        var bytes = template.bytes
        let older = 1 - template.newestMeta
        var generator = SeededGenerator(seed: 20261128)
        for offset in older * 4096..<(older + 1) * 4096 { bytes[offset] = UInt8.random(in: 0...255, using: &generator) }
        withUnsafeBytes(of: (newestID + 1000).littleEndian) { id in
            bytes.replaceSubrange(older * 4096 + Offset.transactionID..<older * 4096 + Offset.transactionID + 8, with: id)
        }
        let opened = try template.open(bytes, case: "older garbage").get()
        #expect(opened.contents == template.contents, "the newest commit is read: nothing was lost")
        let recovery = try #require(opened.recovery)
        #expect(recovery.openedTransaction == newestID)
        #expect(!recovery.lossIsCertain, "\(recovery)")
        #expect(!recovery.description.contains("damaged and skipped"), "\(recovery)")
    }

    /// The older page's magic number damaged, its id and tree intact: its snapshot's commit marker
    /// shows it held the commit before, so the report knows nothing was lost.
    @Test func anOlderMetaPageWithAReadableTreeLosesNothing() throws {
        var bytes = template.bytes
        let older = 1 - template.newestMeta
        bytes[older * 4096 + Offset.magic] ^= 0xFF
        let opened = try template.open(bytes, case: "older magic").get()
        #expect(opened.contents == template.contents)
        let recovery = try #require(opened.recovery)
        #expect(recovery.skippedTransaction == nil && recovery.description.contains("losing nothing"), "\(recovery)")
    }

    /// The newest page's header damaged (its last page beyond the map), its tree intact: the
    /// tree's commit marker proves the newest commit existed, so the loss is certain.
    @Test func aNewestMetaPageWhoseTreeStillReadsIsACertainLoss() throws {
        var bytes = template.bytes
        let newest = template.newestMeta
        withUnsafeBytes(of: UInt64(1 << 40).littleEndian) { lastPage in
            bytes.replaceSubrange(newest * 4096 + Offset.lastPage..<newest * 4096 + Offset.lastPage + 8, with: lastPage)
        }
        let opened = try template.open(bytes, case: "newest last page").get()
        #expect(opened.contents == template.previousContents)
        let recovery = try #require(opened.recovery)
        #expect(recovery.skippedTransaction == newestID && recovery.lossIsCertain, "\(recovery)")
    }
}
