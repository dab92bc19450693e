import Foundation
/// One key of a config file as its setter reads it (`DaemonConfig.keys`): the value, with the key
/// and the file that every complaint about it names.
struct ConfigEntry: Sendable {
    let key: String
    let value: ConfigFile.Value
    let path: String

    /// What is wrong with this key's value ("must be a string"), as the error that names the key.
    func refused(_ complaint: String) -> ConfigError {
        ConfigError(path: path, line: nil, message: "\(key) \(complaint)")
    }

    func string() throws(ConfigError) -> String {
        guard case .string(let text) = value else { throw refused("must be a string") }
        return text
    }

    func bool() throws(ConfigError) -> Bool {
        guard case .bool(let flag) = value else { throw refused("must be true or false") }
        return flag
    }

    func integer(in range: ClosedRange<Int>) throws(ConfigError) -> Int {
        guard case .integer(let number) = value, let int = Int(exactly: number), range.contains(int) else {
            throw refused("must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return int
    }

    /// A string that is one of `choices`.
    func choice(of choices: [String]) throws(ConfigError) -> String {
        let text = try string()
        guard choices.contains(text) else { throw refused("must be one of \(choices.joined(separator: ", "))") }
        return text
    }

    /// A string naming one of `Choice`'s cases.
    func choice<Choice: RawRepresentable & CaseIterable>(_: Choice.Type) throws(ConfigError) -> Choice where Choice.RawValue == String {
        let text = try choice(of: Choice.allCases.map(\.rawValue))
        guard let chosen = Choice(rawValue: text) else { throw refused("must be one of \(Choice.allCases.map(\.rawValue))") }
        return chosen
    }

    /// A rate of bytes a second, as a person writes one: "2 MB/s", "500 KB/s", "1.5 MiB/s" (decimal
    /// units are powers of 1000, binary ones of 1024; "/s" may be left out); "unlimited": none (nil).
    func rate() throws(ConfigError) -> Int64? {
        let text = try string().trimmingCharacters(in: .whitespaces)
        if text.lowercased() == "unlimited" { return nil }
        let units: [String: Double] = [
            "b": 1, "kb": 1e3, "mb": 1e6, "gb": 1e9, "kib": 1024, "mib": 1_048_576, "gib": 1_073_741_824,
        ]
        var rest = text.lowercased()
        if rest.hasSuffix("/s") { rest.removeLast(2) }
        let number = rest.prefix { $0.isNumber || $0 == "." }
        let unit = rest.dropFirst(number.count).trimmingCharacters(in: .whitespaces)
        guard let value = Double(number), let scale = units[unit] else {
            throw refused("must be a rate like \"2 MB/s\" or \"500 KB/s\", or \"unlimited\" (given \"\(text)\")")
        }
        let bytes = value * scale
        guard bytes >= 1024, bytes <= 1e12 else {
            throw refused("must be from 1 KiB/s to 1 TB/s; leave it out, or say \"unlimited\", for no limit (given \"\(text)\")")
        }
        return Int64(bytes)
    }

    /// Hosts as a TOML array of strings, or as one comma-separated string (the environment variable's form).
    func hosts() throws(ConfigError) -> [String] {
        switch value {
        case .string(let list):
            return DaemonConfig.hostList(list)
        case .array(let items):
            var hosts: [String] = []
            for item in items {
                guard case .string(let host) = item else { throw refused("must be an array of strings") }
                hosts += DaemonConfig.hostList(host)
            }
            return hosts
        default:
            throw refused("must be an array of strings")
        }
    }

    /// The secret kept in the file this key names, without the whitespace around it.
    func secret() throws(ConfigError) -> String {
        let file = try string()
        do {
            return try String(contentsOfFile: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        } catch {
            throw ConfigError(path: path, line: nil, message: "\(key): cannot read \(file): \(error.localizedDescription)")
        }
    }
}
