/// The `squall` command line: maps arguments to configuration values and calls the library.
public enum SquallCommand {
    /// Runs the command and returns the process exit status.
    public static func main(arguments: [String]) -> Int32 {
        0
    }
}
