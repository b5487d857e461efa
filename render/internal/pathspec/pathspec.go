// Package pathspec is git's matching of a pathspec against a file path, as
// `git ls-files -- PATTERN` does it without magic: Argo CD's repo server
// lists a git files generator's files that way, so an ApplicationSet's
// pattern selects here what it selects there.
package pathspec

import "strings"

// LsFiles reports whether `git ls-files -- pattern` lists file, which is how the repo server matches
// a git files generator path by default (util/git LsFiles without new globbing): a pathspec without magic.
// It matches when it names the file or a leading directory of it, or as a wildmatch pattern without
// WM_PATHNAME, where * and ? also match "/" (so "some-path/*.yaml" reaches into subdirectories).
func LsFiles(pattern, file string) bool {
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
		if px < len(p) && p[px] == '*' {
			for px < len(p) && p[px] == '*' {
				px++
			}
			if px == len(p) {
				return true
			}
			starP, starT = px, tx
			continue
		}
		if px < len(p) {
			width, step := matchToken(p[px:], t, tx)
			if step == tokenAbort {
				return false
			}
			if step == tokenMatched {
				px += width
				tx++
				continue
			}
		}
		// A mismatch (or pattern left over): let the last star swallow one more byte and retry after it.
		if starP < 0 || starT >= len(t) {
			return false
		}
		starT++
		px, tx = starP, starT
	}
	return true
}

// tokenStep is how one pattern token other than a star fares against one byte of the text.
type tokenStep int

const (
	tokenMismatch tokenStep = iota // no match here: backtrack to the last star, if any
	tokenMatched                   // the token matched the byte
	tokenAbort                     // the pattern is malformed: git aborts the whole match
)

// matchToken matches the token opening p (not a star) against t[tx], which may be past the end of t;
// width is the token's length in p when it matched. It is split from wildmatch so that the star and
// backtracking logic reads apart from the per-token rules.
func matchToken(p, t string, tx int) (width int, step tokenStep) {
	have := tx < len(t)
	switch p[0] {
	case '?':
		return 1, matchedIf(have)
	case '[':
		matched, width, ok := matchClass(p, t, tx)
		if !ok {
			return 0, tokenAbort
		}
		return width, matchedIf(matched)
	case '\\':
		if len(p) == 1 {
			return 0, tokenAbort // a trailing backslash is an error for git
		}
		return 2, matchedIf(have && t[tx] == p[1])
	}
	return 1, matchedIf(have && t[tx] == p[0])
}

func matchedIf(b bool) tokenStep {
	if b {
		return tokenMatched
	}
	return tokenMismatch
}

// matchClass matches the class opening p against t[tx]. width is the length of the class in p; ok is
// false when the class is not terminated or holds a malformed item.
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
	// A "]" right after the opening (and the negation) is a member, not the end.
	for first := true; ; first = false {
		if i >= len(p) {
			return false, 0, false
		}
		if p[i] == ']' && !first {
			return have && found != negate, i + 1, true
		}
		in, next, ok := classItem(p, i, c)
		if !ok {
			return false, 0, false
		}
		// Every item is parsed even once one matched: a malformed later item still aborts the match.
		found = found || have && in
		i = next
	}
}

// classItem matches the class item at p[i] against c: a [:name:] class, a byte, or a range lo-hi, either
// end possibly escaped with a backslash. next is the index just after the item; ok is false when the item
// is malformed (an unknown or unterminated [:name:], or a backslash ending the pattern).
func classItem(p string, i int, c byte) (in bool, next int, ok bool) {
	if p[i] == '[' && i+1 < len(p) && p[i+1] == ':' {
		end := strings.Index(p[i+2:], ":]")
		if end < 0 {
			return false, 0, false
		}
		name := p[i+2 : i+2+end]
		if !knownClass(name) {
			return false, 0, false
		}
		return inClass(name, c), i + end + 4, true
	}
	lo, at, ok := classByte(p, i)
	if !ok {
		return false, 0, false
	}
	hi := lo
	// "-" makes a range unless it is the last member ("[a-]" holds "a" and "-").
	if at+2 < len(p) && p[at+1] == '-' && p[at+2] != ']' {
		if hi, at, ok = classByte(p, at+2); !ok {
			return false, 0, false
		}
	}
	return lo <= c && c <= hi, at + 1, true
}

// classByte reads the byte of a class at p[i], undoing a backslash escape; at is the index of the byte
// itself (i, or i+1 after a backslash). ok is false for a backslash that ends the pattern.
func classByte(p string, i int) (b byte, at int, ok bool) {
	if p[i] != '\\' {
		return p[i], i, true
	}
	if i+1 >= len(p) {
		return 0, 0, false
	}
	return p[i+1], i + 1, true
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
