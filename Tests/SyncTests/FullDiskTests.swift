#if canImport(Glibc)
import Glibc
#endif
import Editing
import Foundation
import Library
import Shared
import SplashClient
import Store
import Testing
import TestSupport

/// The library on a tiny tmpfs: downloads hit ENOSPC. The error is clear, no broken file counts as part
/// of the library, the store stays intact, and once there is room every file completes. Needs root
/// to mount.
@Suite(.serialized, .devstack, .enabled(if: getuid() == 0, "mounting a tmpfs needs root"))
struct FullDiskTests {
    @Test func aFullDiskGivesAClearErrorAndDownloadsResumeWhenThereIsRoom() async throws {
        let devstack = try Devstack.require()
        try await devstack.reset()
        // Full-size images (about 2 MB each) cannot fit in 1 MiB.
        try await withDataOnTmpfs(size: "1m") { dir, data in try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.sync(directory: dir.path, config: "[images]\nvariant = \"full\"\n"))
            let photos = try await daemon.seedCatalogue(count: 3)
            for photo in photos { _ = try await daemon.client.send(PhotosLikeRequest(id: photo.id)) }

            let failures = try await daemon.waitForFailures(photos.map(\.id), timeout: .seconds(30))
            #expect(failures.count == 3, "every download should report its failure")
            let errors = failures.values.compactMap(\.lastError)
            #expect(errors.contains { $0.localizedCaseInsensitiveContains("space") }, "the error says the disk is full: \(errors)")
            let usage = try await daemon.client.send(CacheStatusRequest())
            #expect(usage.libraryFiles == 0, "nothing half-written counts as a library file")
            #expect(daemon.libraryFiles().filter { $0.hasSuffix(".jpg") }.isEmpty, "no finished-looking file that is not complete")
            #expect(try Store(path: daemon.databasePath).integrityCheck() == ["ok"])
            #expect(try await daemon.client.send(PhotosListRequest(liked: true)).total == 3, "the likes themselves are safe")

            // Room again: the queue's retries complete every file.
            try await mount(["-o", "remount,size=64m", data])
            let done = try await daemon.waitForLibrary(files: 3, timeout: .seconds(60))
            #expect(done.libraryFiles == 3)
            #expect(daemon.leftovers().isEmpty, "no .part files left: \(daemon.leftovers())")
        } }
    }

    /// An edit that does not fit: its own error (no_space in the protocol, EditRoutes), saying where to
    /// make room, and neither the edit nor its `.part` is left behind.
    @Test func anEditThatDoesNotFitIsNoSpaceAndLeavesNothing() async throws {
        try await withDataOnTmpfs(size: "64k") { _, data in
            let final = data + "/library/edits/e1.jpg"
            #expect {
                try EditStudio.writeAtomically(Data(repeating: 7, count: 1 << 20), to: final)
            } throws: { error in
                guard case EditingError.noSpace(let text) = error else { return false }
                return text.english.contains("No space left on device") && text.english.contains(data)
            }
            let left = (try? FileManager.default.contentsOfDirectory(atPath: data + "/library/edits")) ?? []
            #expect(left.isEmpty, "nothing half-written: \(left)")
            // With room, the same write succeeds.
            try await mount(["-o", "remount,size=4m", data])
            try EditStudio.writeAtomically(Data(repeating: 7, count: 1 << 20), to: final)
            #expect(FileManager.default.fileExists(atPath: final))
        }
    }

    /// libvips writes a full-size edit straight into its `.part` file: when the disk fills under it,
    /// the request still says no_space (not a damaged image), leaves no `.part`, and with room again
    /// the same edit is made.
    @Test func anEditRenderedIntoAFullDiskIsNoSpaceAndLeavesNothing() async throws {
        let devstack = try Devstack.require()
        try await devstack.reset()
        try await withDataOnTmpfs(size: "16m") { dir, data in try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.sync(directory: dir.path))
            let photo = try #require(try await daemon.seedCatalogue(count: 1).first)
            _ = try await daemon.client.send(PhotosLikeRequest(id: photo.id))
            _ = try await daemon.waitForLibrary(files: 1)
            // No room left but a few pages: the original is in, its edit (as large) cannot be.
            var space = statvfs()
            #expect(statvfs(data, &space) == 0)
            let used = (Int(space.f_blocks) - Int(space.f_bfree)) * Int(space.f_frsize)
            try await mount(["-o", "remount,size=\(used + 16_384)", data])

            let steps = [FilterStep(filter: "sepia", params: [0.8])]
            await #expect {
                _ = try await daemon.client.send(EditsCreateRequest(id: photo.id, filters: steps))
            } throws: { error in
                guard let error = error as? RPCError else { return false }
                return error.data?.kind == .noSpace && error.message.contains(data)
            }
            #expect(daemon.leftovers().isEmpty, "no .part left: \(daemon.leftovers())")
            #expect(try await daemon.client.send(EditsListRequest(id: photo.id)).edits.isEmpty)

            try await mount(["-o", "remount,size=64m", data])
            let edit = try await daemon.client.send(EditsCreateRequest(id: photo.id, filters: steps))
            #expect(edit.photoId == photo.id)
            #expect(daemon.leftovers().isEmpty)
        } }
    }

    /// Runs `body` with a temporary directory whose `data` folder is a tmpfs of `size`, unmounted after.
    func withDataOnTmpfs(size: String, _ body: (_ directory: TemporaryDirectory, _ data: String) async throws -> Void) async throws {
        let directory = TemporaryDirectory()
        let data = directory.path + "/data"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        try await mount(["-t", "tmpfs", "-o", "size=\(size),mode=0700", "tmpfs", data])
        defer { _ = try? ChildProcess(executable: "/usr/bin/umount", arguments: ["-l", data], environment: [:]) }
        try await body(directory, data)
    }

    func mount(_ arguments: [String]) async throws {
        let result = try await ChildProcess.run("/usr/bin/mount", arguments, environment: ["PATH": "/usr/bin:/bin"])
        guard result.status == 0 else { throw DevstackError.failed("mount \(arguments.joined(separator: " ")): \(result.stderr)") }
    }
}
