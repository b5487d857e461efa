package appset

import "strings"

// lsFilesMatch reports whether `git ls-files -- pattern` lists file, which is how the repo server matches
// a git files generator path by default (util/git LsFiles without new globbing): a pathspec without magic.
// It matches when it names the file or a leading directory of it, or as a wildmatch pattern without
// WM_PATHNAME, where * and ? also match "/" (so "some-path/*.yaml" reaches into subdirectories).
func lsFilesMatch(pattern, file string) bool {
	p := strings.TrimPrefix(pattern, "./")
	if p == "" || p == "." {
		return true
	}
	if strings.HasPrefix(file, p) && (len(file) == len(p) || p[len(p)-1] == '/' || file[len(p)] == '/') {
		return true
	}
	if !strings.ContainsAny(p, "*?[\\") {
		return false
	}
	return wildmatch(p, file)
}

// wildmatch is git's wildmatch() without WM_PATHNAME and WM_CASEFOLD: * (and **) match any run of bytes,
// ? any byte, [...] a class (with ! or ^ to negate, ranges, [:alpha:] and the like), \ escapes. A malformed
// class matches nothing, as git aborts the match. Backtracking only to the last star keeps it linear in
// practice and quadratic at worst.
func wildmatch(p, t string) bool {
	px, tx := 0, 0
	starP, starT := -1, -1
	for px < len(p) || tx < len(t) {
		if px < len(p) {
			switch c := p[px]; c {
			case '*':
				for px < len(p) && p[px] == '*' {
					px++
				}
				if px == len(p) {
					return true
				}
				starP, starT = px, tx
				continue
			case '?':
				if tx < len(t) {
					px++
					tx++
					continue
				}
			case '[':
				matched, width, ok := matchClass(p[px:], t, tx)
				if !ok {
					return false
				}
				if matched {
					px += width
					tx++
					continue
				}
			case '\\':
				if px+1 == len(p) {
					return false // a trailing backslash is an error for git
				}
				if tx < len(t) && t[tx] == p[px+1] {
					px += 2
					tx++
					continue
				}
			default:
				if tx < len(t) && t[tx] == c {
					px++
					tx++
					continue
				}
			}
		}
		if starP < 0 || starT >= len(t) {
			return false
		}
		starT++
		px, tx = starP, starT
	}
	return true
}

// matchClass matches the class opening p against t[tx]. width is the length of the class in p; ok is
// false when the class is not terminated.
func matchClass(p, t string, tx int) (matched bool, width int, ok bool) {
	i := 1
	negate := i < len(p) && (p[i] == '!' || p[i] == '^')
	if negate {
		i++
	}
	var c byte
	have := tx < len(t)
	if have {
		c = t[tx]
	}
	found := false
	for first := true; ; first = false {
		if i >= len(p) {
			return false, 0, false
		}
		ch := p[i]
		if ch == ']' && !first {
			i++
			break
		}
		if ch == '[' && i+1 < len(p) && p[i+1] == ':' {
			end := strings.Index(p[i+2:], ":]")
			if end < 0 {
				return false, 0, false
			}
			name := p[i+2 : i+2+end]
			if !knownClass(name) {
				return false, 0, false
			}
			found = found || have && inClass(name, c)
			i += end + 4
			continue
		}
		if ch == '\\' {
			i++
			if i >= len(p) {
				return false, 0, false
			}
			ch = p[i]
		}
		lo, hi := ch, ch
		if i+2 < len(p) && p[i+1] == '-' && p[i+2] != ']' {
			hi = p[i+2]
			i += 2
			if hi == '\\' {
				i++
				if i >= len(p) {
					return false, 0, false
				}
				hi = p[i]
			}
		}
		found = found || have && lo <= c && c <= hi
		i++
	}
	return have && found != negate, i, true
}

func knownClass(name string) bool {
	switch name {
	case "alnum", "alpha", "blank", "cntrl", "digit", "graph", "lower", "print", "punct", "space", "upper", "xdigit":
		return true
	}
	return false
}

func inClass(name string, c byte) bool {
	isUpper, isLower, isDigit := 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9'
	switch name {
	case "alnum":
		return isUpper || isLower || isDigit
	case "alpha":
		return isUpper || isLower
	case "blank":
		return c == ' ' || c == '\t'
	case "cntrl":
		return c < 0x20 || c == 0x7f
	case "digit":
		return isDigit
	case "graph":
		return c > 0x20 && c < 0x7f
	case "lower":
		return isLower
	case "print":
		return c >= 0x20 && c < 0x7f
	case "punct":
		return c > 0x20 && c < 0x7f && !isUpper && !isLower && !isDigit
	case "space":
		return c == ' ' || (c >= '\t' && c <= '\r')
	case "upper":
		return isUpper
	case "xdigit":
		return isDigit || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
	}
	return false
}
