// Package fit cuts a Markdown body to a character budget, for the report
// comment and the pull-request diff comment alike. A document is assembled
// from a state that says how much of it to keep; Fit tries the whole
// document, then cuts it step by step, in the document's own order, until
// its assembly fits. A budget too small for what no step cuts is met by a
// hard cut (AtLine, AtRune) that never splits a UTF-8 rune.
//
// Lengths are bytes: they bound characters however GitHub counts them.
package fit

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// A Step cuts some of what state k keeps and returns the smaller state.
// fits reports whether a state's assembly is within the budget; a step may
// search with it.
type Step[K any] func(k K, fits func(K) bool) K

// Drop is a step that always makes the cut it is given, e.g. leaving out a
// whole section.
func Drop[K any](cut func(k *K)) Step[K] {
	return func(k K, _ func(K) bool) K {
		cut(&k)
		return k
	}
}

// Prefix is a step that keeps the longest prefix of a list that fits:
// count points into a state at how many of the list's items it keeps (all
// of them, or as many as the steps before left). The assembly must grow
// with the count; a notice line that shrinks by a few bytes as the count
// grows is tolerated, Fit checks the result again.
func Prefix[K any](count func(k *K) *int) Step[K] {
	return func(k K, fits func(K) bool) K {
		n := Largest(*count(&k), func(m int) bool {
			k2 := k
			*count(&k2) = m
			return fits(k2)
		})
		*count(&k) = n
		return k
	}
}

// Fit returns the assembly of the first state within limit bytes: all,
// then the state each step leaves, in order, each step starting from the
// state of the one before. When even the last does not fit, it returns the
// last assembly and false, for the caller to cut hard.
func Fit[K any](limit int, assemble func(K) string, all K, steps ...Step[K]) (string, bool) {
	fits := func(k K) bool { return len(assemble(k)) <= limit }
	k := all
	s := assemble(k)
	for _, step := range steps {
		if len(s) <= limit {
			return s, true
		}
		k = step(k, fits)
		s = assemble(k)
	}
	return s, len(s) <= limit
}

// Largest is the largest n in [0, hi] with fits(n), by bisection; fits
// must hold for every n below one that it holds for. It is 0 when fits
// holds for none (fits(0) is not asked).
func Largest(hi int, fits func(n int) bool) int {
	lo := 0
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// Notice is the line that says what was cut (cuts, e.g. "3 ledger rows")
// to fit the budget called limitName, and where the reader finds it all
// (whole, a sentence); "" when nothing was cut.
func Notice(limitName string, cuts []string, whole string) string {
	if len(cuts) == 0 {
		return ""
	}
	return fmt.Sprintf("> ✂️ **Cut to fit %s:** %s. %s\n\n", limitName, strings.Join(cuts, ", "), whole)
}

// AtLine cuts s so that it and tail, appended, fit limit bytes: at the last
// line break that fits, when one comes after the first head bytes (the part
// of the body that is cut last), else at the last rune boundary that fits.
// It returns s unchanged when s fits.
func AtLine(s string, limit, head int, tail string) string {
	if len(s) <= limit {
		return s
	}
	keep := max(0, limit-len(tail))
	if i := strings.LastIndexByte(s[:keep], '\n'); i > head {
		keep = i
	}
	return AtRune(s, keep) + tail
}

// AtRune is the longest prefix of s of at most n bytes that does not end
// inside a UTF-8 rune.
func AtRune(s string, n int) string {
	if n >= len(s) {
		return s
	}
	n = max(n, 0)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// WriteList writes a list cut by Prefix: head (a table's header, say) and
// the first kept items, then more(n) standing for the n items left out,
// when any, then a blank line. An empty list writes nothing.
func WriteList(b *strings.Builder, head string, items []string, kept int, more func(n int) string) {
	if len(items) == 0 {
		return
	}
	b.WriteString(head)
	for _, it := range items[:kept] {
		b.WriteString(it)
	}
	if n := len(items) - kept; n > 0 {
		b.WriteString(more(n))
	}
	b.WriteString("\n")
}
