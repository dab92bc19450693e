import ArgumentParser
import CLIText

extension ArgumentHelp {
    /// A help text in the environment's language: `@Option(help: .text(.socketOption))`. ArgumentParser
    /// builds the help when the command's property wrappers are initialised, after `Language.current`
    /// is fixed for the process.
    static func text(_ help: HelpText) -> ArgumentHelp {
        ArgumentHelp(help.text())
    }
}
