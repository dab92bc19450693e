import ArgumentParser
import CLIText
import Foundation
import Shared

// splashctl's library actions: like, unlike, dismiss.

struct LikeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "like", abstract: HelpText.likeAbstract.text())
    @OptionGroup var global: GlobalOptions
    @Argument(help: .text(.photoID)) var id: String
    @Flag(help: .text(.likeAllowDuplicate)) var allowDuplicate = false

    func run() async throws {
        try await global.run(PhotosLikeRequest(id: id, allowDuplicate: allowDuplicate ? true : nil), render: PhotoActionText.render)
    }
}

struct UnlikeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "unlike", abstract: HelpText.unlikeAbstract.text())
    @OptionGroup var global: GlobalOptions
    @Argument(help: .text(.photoIDShort)) var id: String

    func run() async throws {
        try await global.run(PhotosUnlikeRequest(id: id), render: PhotoActionText.render)
    }
}

struct DismissCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dismiss", abstract: HelpText.dismissAbstract.text())
    @OptionGroup var global: GlobalOptions
    @Flag(help: .text(.dismissUndo)) var undo = false
    @Argument(help: .text(.photoIDShort)) var id: String

    func run() async throws {
        try await global.run(PhotosDismissRequest(id: id, undo: undo ? true : nil), render: PhotoActionText.render)
    }
}

enum PhotoActionText {
    static func render(_ result: PhotoActionResult, _ style: TerminalStyle) -> String {
        var text = "\(result.id): " + (result.liked ? style.green(Message.liked.text()) : Message.notLiked.text())
            + (result.dismissed ? ", " + Message.dismissed.text() : "")
        if !result.changed { text += " " + style.dim(Message.noChange.text()) }
        if result.queued { text += style.dim(" — " + Message.queuedForServer.text()) }
        if result.guest == true { text += style.dim(" — " + Message.keptAsGuest.text()) }
        return text
    }
}
