// Package mdoc is the one Markdown document builder of capreport's
// comments: the report's ledger (package report, which also converts the
// same body into its HTML page) and the pull-request diff (package
// report/diff) each put their body together as a Doc of blocks, and mdoc
// heads it with the marker, says what was cut, and fits it into a budget,
// GitHub's comment limit by default.
//
// A Doc keeps its head (marker, title, headline, note) and its foot
// whatever the budget; Fit cuts its blocks, each in the order the caller
// gives, until the body fits, and writes one line saying what was cut and
// where to read it whole. A budget too small for what no cut removes is
// met by a hard cut that never splits a UTF-8 rune.
//
// Lengths are bytes: they bound characters however GitHub counts them.
package mdoc

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/capreport/capreport/internal/units"
)

// Marker is the hidden first line of every comment body; the GitHub client
// finds its sticky comment by it.
const Marker = "<!-- capreport -->"

// GitHubCommentLimit is GitHub's limit on a comment body, in characters.
const GitHubCommentLimit = 65536

// DefaultMaxChars keeps a body under GitHub's 65,536-character comment
// limit with room for a marker or a footer the caller may add.
const DefaultMaxChars = 65000

// DefaultLimitName is the budget a comment is cut to, as the notice names
// it.
const DefaultLimitName = "GitHub's 65,536-character comment limit"

// A Doc is a body in pieces, each rendered once; String joins them all and
// Fit the most of them a budget holds.
type Doc struct {
	// Title is the body's heading, Markdown (escape it with Text).
	Title string
	// Lead are the Markdown paragraphs under the title, the headline
	// first; each is kept whatever is cut.
	Lead []string
	// Note is a Markdown paragraph kept under the lead, trimmed; "" for
	// none.
	Note string
	// Blocks are the body's blocks in reading order.
	Blocks []*Block
	// Foot are the Markdown parts of the closing <sub> line. The line is
	// a paragraph with inline HTML: GitHub parses the Markdown inside it,
	// so its text is escaped as Markdown.
	Foot []string
	// LimitName names the budget in the notice of what was cut.
	LimitName string
	// Whole is the notice's sentence on where everything can be read.
	Whole string
	// Overflow ends a body that does not fit once every cut is made: the
	// hard cut then falls at a line break past the head, and Overflow says
	// so. Without it the body is cut at the last rune that fits.
	Overflow string
}

// A Block is a list of items written between a head and an end, e.g. a
// table's header, its rows and the blank line after it. A block without
// items is not written at all, head and end included.
type Block struct {
	Head  string
	Items []string
	// Keep is how many of the first items no cut removes.
	Keep int
	// More stands for the n items a cut left out, e.g. "…and 3 more"; nil
	// writes nothing in their place.
	More func(n int) string
	End  string
	// Noun names n items a cut left out, for the notice ("the details of
	// 3 autoscalers"); empty items are not counted. A block a Cut names
	// needs one.
	Noun func(n int) string
}

// Fixed is a block no cut removes: text written as it is.
func Fixed(s string) *Block {
	return &Block{Items: []string{s}, Keep: 1}
}

// Ledger is a table that keeps its first rows when cut: head is the
// header, more(n) the line standing for the n rows left out, and a blank
// line ends the table.
func Ledger(head string, rows []string, more func(n int) string) *Block {
	return &Block{Head: head, Items: rows, More: more, End: "\n", Noun: func(n int) string {
		return fmt.Sprintf("%d ledger %s", n, units.Plural(n, "row", "rows"))
	}}
}

// Details is the list of autoscalers' <details> blocks (see OpenDetails),
// one item each, cut from the last.
func Details(items []string) *Block {
	return &Block{Items: items, Noun: func(n int) string {
		return fmt.Sprintf("the details of %d %s", n, units.Plural(n, "autoscaler", "autoscalers"))
	}}
}

// DetailsWithin is Details of n items, the i-th written by write(i), in
// order, until those written take more than limit bytes. A cut of the
// block within limit could keep none after that, so the rest are not
// written: each stands as unwritten, which is never kept, only counted as
// cut (96,000 autoscalers' details took 0.9 GB, to keep 1 MiB of them).
func DetailsWithin(n, limit int, write func(i int) string) *Block {
	items := make([]string, n)
	written := 0
	for i := range items {
		if written > limit {
			items[i] = unwritten
			continue
		}
		items[i] = write(i)
		written += len(items[i])
	}
	return Details(items)
}

// unwritten stands for an item DetailsWithin did not write.
const unwritten = "\n"

// write writes the block with its first kept items.
func (bl *Block) write(b *strings.Builder, kept int) {
	if len(bl.Items) == 0 {
		return
	}
	b.WriteString(bl.Head)
	for _, it := range bl.Items[:kept] {
		b.WriteString(it)
	}
	if n := len(bl.Items) - kept; n > 0 && bl.More != nil {
		b.WriteString(bl.More(n))
	}
	b.WriteString(bl.End)
}

// size is the length write gives the block with its first kept items.
func (bl *Block) size(kept int) int {
	if len(bl.Items) == 0 {
		return 0
	}
	n := len(bl.Head) + len(bl.End)
	for _, it := range bl.Items[:kept] {
		n += len(it)
	}
	if m := len(bl.Items) - kept; m > 0 && bl.More != nil {
		n += len(bl.More(m))
	}
	return n
}

// cutItems counts the non-empty items a cut to kept leaves out.
func (bl *Block) cutItems(kept int) int {
	n := 0
	for _, s := range bl.Items[kept:] {
		if s != "" {
			n++
		}
	}
	return n
}

// A Cut is one step of Fit: it shrinks one block.
type Cut struct {
	block *Block
	drop  bool
}

// Prefix keeps the longest run of b's first items that fits (never fewer
// than b.Keep): the last items go first.
func Prefix(b *Block) Cut { return Cut{block: b} }

// Drop leaves out every item of b past b.Keep at once.
func Drop(b *Block) Cut { return Cut{block: b, drop: true} }

// String is the whole body, nothing cut: for a medium without a budget
// (the HTML page).
func (d *Doc) String() string {
	f := d.fitter(nil)
	return f.assemble(f.all())
}

// Fit returns the body within limit bytes: the whole body when it fits,
// else the body each cut leaves, in order, each starting from what the
// one before left, until one fits. When even the last does not, the body
// is cut hard (see Overflow).
func (d *Doc) Fit(limit int, cuts ...Cut) string {
	f := d.fitter(cuts)
	kept := f.all()
	for _, c := range f.cuts {
		if f.size(kept) <= limit {
			break
		}
		if c.drop {
			kept[c.i] = min(kept[c.i], d.Blocks[c.i].Keep)
		} else {
			f.prefix(kept, c.i, limit)
		}
	}
	s := f.assemble(kept)
	if len(s) <= limit {
		return s
	}
	if d.Overflow == "" {
		return atRune(s, limit)
	}
	return atLine(s, limit, len(f.head), d.Overflow)
}

// fitter is a Doc being fitted: its head and foot written once, and its
// cuts by block index.
type fitter struct {
	d          *Doc
	head, foot string
	cuts       []blockCut
}

type blockCut struct {
	i    int
	drop bool
}

func (d *Doc) fitter(cuts []Cut) *fitter {
	f := &fitter{d: d, head: d.head(), foot: d.foot()}
	for _, c := range cuts {
		i := d.index(c.block)
		for _, prev := range f.cuts {
			if prev.i == i {
				panic("mdoc: a block is cut twice")
			}
		}
		if c.block.Noun == nil {
			panic("mdoc: a cut block has no Noun for the notice")
		}
		f.cuts = append(f.cuts, blockCut{i: i, drop: c.drop})
	}
	return f
}

// index is the position of b among the Doc's blocks.
func (d *Doc) index(b *Block) int {
	for i, bl := range d.Blocks {
		if bl == b {
			return i
		}
	}
	panic("mdoc: a cut names a block that is not in the document")
}

// all keeps every item of every block.
func (f *fitter) all() []int {
	kept := make([]int, len(f.d.Blocks))
	for i, b := range f.d.Blocks {
		kept[i] = len(b.Items)
	}
	return kept
}

// prefix keeps the most items of block i, between its Keep and what it
// keeps now, with which the body fits limit, found by bisection: the body
// grows with the count (a notice line that shrinks by a few bytes as the
// count grows is tolerated, Fit checks the result again). It keeps the
// floor when none fits (the floor itself is not tried).
func (f *fitter) prefix(kept []int, i, limit int) {
	hi := kept[i]
	lo := min(f.d.Blocks[i].Keep, hi)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		kept[i] = mid
		if f.size(kept) <= limit {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	kept[i] = lo
}

// assemble joins the head, the notice, the kept items and the foot.
func (f *fitter) assemble(kept []int) string {
	var b strings.Builder
	b.WriteString(f.head)
	b.WriteString(f.notice(kept))
	for i, bl := range f.d.Blocks {
		bl.write(&b, kept[i])
	}
	b.WriteString(f.foot)
	return b.String()
}

// size is the length assemble(kept) would have: the body is measured,
// not written, while the cuts are tried (a body of 96,000 autoscalers
// was written whole some twenty times, 4 GB, to keep 1 MiB of it).
func (f *fitter) size(kept []int) int {
	n := len(f.head) + len(f.notice(kept)) + len(f.foot)
	for i, bl := range f.d.Blocks {
		n += bl.size(kept[i])
	}
	return n
}

// notice is the line that says what was cut, in the order of the cuts;
// "" when nothing was.
func (f *fitter) notice(kept []int) string {
	var parts []string
	for _, c := range f.cuts {
		bl := f.d.Blocks[c.i]
		if n := bl.cutItems(kept[c.i]); n > 0 {
			parts = append(parts, bl.Noun(n))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("> ✂️ **Cut to fit %s:** %s. %s\n\n", f.d.LimitName, strings.Join(parts, ", "), f.d.Whole)
}

// head is what every body starts with: the marker, the title, the lead and
// the note.
func (d *Doc) head() string {
	var b strings.Builder
	b.WriteString(Marker + "\n")
	fmt.Fprintf(&b, "## %s\n\n", d.Title)
	for _, p := range d.Lead {
		b.WriteString(p + "\n\n")
	}
	if d.Note != "" {
		b.WriteString(strings.TrimSpace(d.Note) + "\n\n")
	}
	return b.String()
}

// foot is the closing <sub> line.
func (d *Doc) foot() string {
	return "<sub>" + strings.Join(d.Foot, " · ") + "</sub>\n"
}

// atLine cuts s so that it and tail, appended, fit limit bytes: at the last
// line break that fits, when one comes after the first head bytes (the part
// of the body that is cut last), else at the last rune boundary that fits.
func atLine(s string, limit, head int, tail string) string {
	keep := max(0, limit-len(tail))
	if i := strings.LastIndexByte(s[:keep], '\n'); i > head {
		keep = i
	}
	return atRune(s, keep) + tail
}

// atRune is the longest prefix of s of at most n bytes that does not end
// inside a UTF-8 rune.
func atRune(s string, n int) string {
	if n >= len(s) {
		return s
	}
	n = max(n, 0)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
