// Connectivity: netlink + probe (issue 6).
