/// Decides which rtnetlink messages are real changes. The kernel repeats itself: every IPv6 router advertisement
/// refreshes address and route lifetimes (RTM_NEWADDR / RTM_NEWROUTE for things that already exist), DHCP renewals
/// re-add the same address, and wireless drivers send RTM_NEWLINK for scan results. Probing the backend for each
/// of those would put traffic on an idle machine every few minutes for nothing.
///
/// So it keeps what it has seen: per link the flags that matter (up, running, lower up), the set of addresses and
/// the set of routes. A message that adds nothing new is not a change. Anything it has not seen, any deletion, an
/// overrun and anything it cannot parse counts as a change (when in doubt, probe). Pure: fed bytes, no socket.
struct NetlinkFilter: Sendable {
    private var linkFlags: [Int32: UInt32] = [:]
    private var addresses: Set<[UInt8]> = []
    private var routes: Set<[UInt8]> = []

    static let IFF_UP: UInt32 = 0x1
    static let IFF_RUNNING: UInt32 = 0x40
    static let IFF_LOWER_UP: UInt32 = 0x1_0000
    static let relevantLinkFlags = IFF_UP | IFF_RUNNING | IFF_LOWER_UP

    /// The names of the messages in one datagram that are changes (empty: nothing new).
    mutating func changes(in datagram: UnsafeRawBufferPointer) -> [String] {
        var changes: [String] = []
        var offset = 0
        while offset + 16 <= datagram.count {
            let length = Int(datagram.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            let type = datagram.loadUnaligned(fromByteOffset: offset + 4, as: UInt16.self)
            guard length >= 16, offset + length <= datagram.count else {
                changes.append("malformed")
                break
            }
            let payload = UnsafeRawBufferPointer(rebasing: datagram[(offset + 16)..<(offset + length)])
            if isChange(type: type, payload: payload) { changes.append(RTNetlink.name(of: type)) }
            offset += (length + 3) & ~3
        }
        return changes
    }

    /// Messages were lost: forget what we know, so nothing that follows is taken for a repeat.
    mutating func overrun() {
        linkFlags = [:]
        addresses = []
        routes = []
    }

    private mutating func isChange(type: UInt16, payload: UnsafeRawBufferPointer) -> Bool {
        switch type {
        case 16, 17:  // RTM_NEWLINK, RTM_DELLINK: struct ifinfomsg { u8 family, pad; u16 type; i32 index; u32 flags, change }
            guard payload.count >= 16 else { return true }
            let index = payload.loadUnaligned(fromByteOffset: 4, as: Int32.self)
            let flags = payload.loadUnaligned(fromByteOffset: 8, as: UInt32.self) & Self.relevantLinkFlags
            guard type == 16 else {
                linkFlags[index] = nil
                return true
            }
            return linkFlags.updateValue(flags, forKey: index) != flags
        case 20, 21:  // RTM_NEWADDR, RTM_DELADDR: struct ifaddrmsg { u8 family, prefixlen, flags, scope; u32 index } + attrs
            guard payload.count >= 8 else { return true }
            // Family, prefix length, tentative / DAD-failed (a usable address is news), interface index.
            var key = [UInt8](payload[0..<2]) + [payload[2] & 0x48] + [UInt8](payload[4..<8])
            for (attribute, value) in Self.attributes(payload, from: 8) where attribute == 1 || attribute == 2 {
                key += [UInt8(attribute)] + value  // IFA_ADDRESS, IFA_LOCAL
            }
            guard type == 20 else {
                addresses.remove(key)
                return true
            }
            return addresses.insert(key).inserted
        case 24, 25:  // RTM_NEWROUTE, RTM_DELROUTE: struct rtmsg { family, dst_len, src_len, tos, table, protocol, scope, type; u32 flags }
            guard payload.count >= 12 else { return true }
            var key = [UInt8](payload[0..<5]) + [payload[7]]
            for (attribute, value) in Self.attributes(payload, from: 12) where [1, 4, 5, 6, 15].contains(attribute) {
                key += [UInt8(attribute)] + value  // RTA_DST, RTA_OIF, RTA_GATEWAY, RTA_PRIORITY, RTA_TABLE
            }
            guard type == 24 else {
                routes.remove(key)
                return true
            }
            return routes.insert(key).inserted
        default:
            return true
        }
    }

    /// struct rtattr { u16 len; u16 type } + value, each aligned to 4 bytes.
    static func attributes(_ payload: UnsafeRawBufferPointer, from start: Int) -> [(UInt16, [UInt8])] {
        var result: [(UInt16, [UInt8])] = []
        var offset = start
        while offset + 4 <= payload.count {
            let length = Int(payload.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
            let type = payload.loadUnaligned(fromByteOffset: offset + 2, as: UInt16.self) & 0x3FFF
            guard length >= 4, offset + length <= payload.count else { break }
            result.append((type, [UInt8](payload[(offset + 4)..<(offset + length)])))
            offset += (length + 3) & ~3
        }
        return result
    }
}
