package cmdtest

// HostileNames are object names and namespaces a manifest may hold that
// YAML would read as something else: indicators, nulls, booleans,
// numbers, quotes, comments, globs, line breaks of every kind.
var HostileNames = []string{
	"- item", "? key", "~", "null", "Null", "true", "no", "1e3", "0x10", ".inf", "<<", "=",
	"#x", "x #y", "a: b", "a:b", "'q'", "\"dq\"", "|", ">", "&a", "*a", "!tag", "%x", "@x", "`x",
	"[", "]", "{a,b}", "api-*", "a?c", "[ab]", "**", "\\", "a\\*", "{", "}", ",", "x,y",
	" lead", "trail ", "\ttab", "a\nb", "a\r\nb", "a\u0085b", "a\u2028b", "a\u2029b",
	"x\n  - deadTime: 1s\n    podRate: 1000", "x\n  - deadTime: 1s\n    podRate: 1000\n#", "é", "\u00a0", "a\x7fb", "\ufeffbom",
}
