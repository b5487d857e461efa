package mdoc

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// toy is a small body with every kind of block: a ledger cut by Prefix, a
// fixed paragraph, details cut by Prefix (one of them empty), and a table
// whose first rows no cut removes, cut by Drop.
type toy struct {
	doc                     *Doc
	ledger, details, extras *Block
	cuts                    []Cut
}

func newToy(overflow string) toy {
	row := func(i int) string { return fmt.Sprintf("| row %d %s |\n", i, strings.Repeat("r", 40)) }
	var rows, details []string
	for i := range 6 {
		rows = append(rows, row(i))
		d := fmt.Sprintf("<details>%d %s</details>\n\n", i, strings.Repeat("d", 150))
		if i == 2 {
			d = "" // a workload without details: not counted as cut
		}
		details = append(details, d)
	}
	t := toy{
		ledger:  Ledger("| H |\n|---|\n", rows, func(n int) string { return fmt.Sprintf("\n…and %d more\n", n) }),
		details: Details(details),
		extras: &Block{Head: "<x>\n", Items: []string{"kept ✂\n", "e1 " + strings.Repeat("e", 40) + "\n", "e2 " + strings.Repeat("e", 40) + "\n"}, Keep: 1, End: "</x>\n\n",
			More: func(n int) string { return fmt.Sprintf("(%d more)\n", n) },
			Noun: func(n int) string { return fmt.Sprintf("%d extras", n) }},
	}
	t.doc = &Doc{
		Title: "Title", Lead: []string{"**headline**", "second"}, Note: " note \n",
		Blocks:    []*Block{t.ledger, Fixed("fixed paragraph\n\n"), t.details, t.extras},
		Foot:      []string{"tool", "v1"},
		LimitName: "the budget", Whole: "See the JSON.", Overflow: overflow,
	}
	t.cuts = []Cut{Prefix(t.details), Drop(t.extras), Prefix(t.ledger)}
	return t
}

// reference fits the toy the slow way: for each cut in order, every count
// from what is kept down to the floor, the largest that fits.
func (t toy) reference(limit int) (string, bool) {
	f := t.doc.fitter(t.cuts)
	kept := f.all()
	fits := func() bool { return len(f.assemble(kept)) <= limit }
	for _, c := range f.cuts {
		if fits() {
			break
		}
		floor := t.doc.Blocks[c.i].Keep
		if c.drop {
			kept[c.i] = floor
			continue
		}
		for kept[c.i] > floor && !fits() {
			kept[c.i]--
		}
	}
	s := f.assemble(kept)
	return s, len(s) <= limit
}

func TestFitMatchesReferenceAtEveryLimit(t *testing.T) {
	for _, overflow := range []string{"", "\n…cut\n"} {
		d := newToy(overflow)
		full := d.doc.String()
		if got := d.doc.Fit(len(full), d.cuts...); got != full {
			t.Errorf("a body that fits was cut:\n%s", got)
		}
		for limit := range len(full) + 2 {
			got := d.doc.Fit(limit, d.cuts...)
			want, ok := d.reference(limit)
			if ok && got != want {
				t.Errorf("overflow %q, limit %d:\n got %q\nwant %q", overflow, limit, got, want)
			}
			// A limit shorter than Overflow's line gets the line alone.
			if !ok && ((len(got) > limit && limit >= len(overflow)) || !strings.HasPrefix(want, strings.TrimSuffix(got, overflow))) {
				t.Errorf("overflow %q, limit %d: hard cut %q is over the limit or not a prefix of %q", overflow, limit, got, want)
			}
			if !utf8.ValidString(got) {
				t.Errorf("limit %d: split a rune: %q", limit, got)
			}
		}
	}
}

// size measures what assemble writes, for every count each block may
// keep: Fit tries cuts by size and writes only the body it returns.
func TestSizeIsWhatAssembleWrites(t *testing.T) {
	d := newToy("")
	f := d.doc.fitter(d.cuts)
	kept := f.all()
	var walk func(i int)
	walk = func(i int) {
		if i == len(kept) {
			if got, want := f.size(kept), len(f.assemble(kept)); got != want {
				t.Errorf("kept %v: size %d, assembled %d bytes", kept, got, want)
			}
			return
		}
		for k := range len(d.doc.Blocks[i].Items) + 1 {
			kept[i] = k
			walk(i + 1)
		}
	}
	walk(0)
}

// The cuts come in the order given and the notice says what each left out.
func TestFitAtTheLimit(t *testing.T) {
	d := newToy("")
	full := d.doc.String()
	size := func(f func(k []int)) int {
		fr := d.doc.fitter(d.cuts)
		k := fr.all()
		f(k)
		return len(fr.assemble(k))
	}
	// kept: ledger, fixed, details, extras
	noDetails := size(func(k []int) { k[2] = 0 })
	noExtras := size(func(k []int) { k[2], k[3] = 0, 1 })
	oneRow := size(func(k []int) { k[0], k[2], k[3] = 1, 0, 1 })
	for _, c := range []struct {
		name   string
		limit  int
		notice string // "" when nothing is cut
		has    []string
		hasNot []string
	}{
		{"whole", len(full), "", []string{"<details>5", "e2 ", "| row 5 "}, []string{"Cut to fit"}},
		{"one byte short: the last details go", len(full) - 1,
			"> ✂️ **Cut to fit the budget:** the details of 1 autoscaler. See the JSON.\n\n",
			[]string{"<details>4", "e2 "}, []string{"<details>5"}},
		{"no details left: the empty one is not counted", noDetails,
			"> ✂️ **Cut to fit the budget:** the details of 5 autoscalers. See the JSON.\n\n",
			[]string{"e2 ", "| row 5 "}, []string{"<details>"}},
		{"then the extras past Keep, at once", noDetails - 1,
			"> ✂️ **Cut to fit the budget:** the details of 5 autoscalers, 2 extras. See the JSON.\n\n",
			[]string{"<x>\nkept ✂\n(2 more)\n</x>\n\n", "| row 5 "}, []string{"e1 "}},
		{"then ledger rows from the end", noExtras - 1,
			"> ✂️ **Cut to fit the budget:** the details of 5 autoscalers, 2 extras, 1 ledger row. See the JSON.\n\n",
			[]string{"| row 4 ", " |\n\n…and 1 more\n\nfixed"}, []string{"| row 5 "}},
		{"one row left", oneRow,
			"> ✂️ **Cut to fit the budget:** the details of 5 autoscalers, 2 extras, 5 ledger rows. See the JSON.\n\n",
			[]string{"|---|\n| row 0 ", " |\n\n…and 5 more\n\nfixed"}, []string{"| row 1 "}},
	} {
		got := d.doc.Fit(c.limit, d.cuts...)
		if len(got) > c.limit {
			t.Errorf("%s: %d bytes over %d", c.name, len(got), c.limit)
		}
		head := Marker + "\n## Title\n\n**headline**\n\nsecond\n\nnote\n\n"
		if !strings.HasPrefix(got, head+c.notice) || !strings.HasSuffix(got, "<sub>tool · v1</sub>\n") {
			t.Errorf("%s: head, notice or foot lost:\n%s", c.name, got)
		}
		if c.notice == "" && strings.Contains(got, "✂️") {
			t.Errorf("%s: a notice though nothing was cut:\n%s", c.name, got)
		}
		for _, s := range c.has {
			if !strings.Contains(got, s) {
				t.Errorf("%s: lacks %q:\n%s", c.name, s, got)
			}
		}
		for _, s := range c.hasNot {
			if strings.Contains(got, s) {
				t.Errorf("%s: has %q:\n%s", c.name, s, got)
			}
		}
	}
}

// When every cut is made and the body is still too long, it is cut hard:
// at a line break past the head with Overflow's line, or at a rune.
func TestFitHardCut(t *testing.T) {
	d := newToy("\n…cut\n")
	d.doc.Blocks[1] = Fixed(strings.Repeat("a fixed line that no cut removes ✂\n", 20))
	head := len(d.doc.head())
	floor, _ := d.reference(0)
	for limit := head + 8; limit < len(floor); limit += 7 {
		got := d.doc.Fit(limit, d.cuts...)
		body, ok := strings.CutSuffix(got, "\n…cut\n")
		if !ok || len(got) > limit || !strings.HasPrefix(floor, body) {
			t.Fatalf("limit %d: %q", limit, got)
		}
		// Past the head, the cut is at a line break when there is one.
		if len(body) > head && floor[len(body)] != '\n' && strings.Contains(body[head+1:], "\n") {
			t.Errorf("limit %d: cut inside a line past the head: %q", limit, body)
		}
	}
	d.doc.Overflow = ""
	for _, limit := range []int{0, 3, head - 1, head + 30} {
		got := d.doc.Fit(limit, d.cuts...)
		if want := atRune(floor, limit); got != want {
			t.Errorf("no overflow, limit %d: got %q, want %q", limit, got, want)
		}
	}
}

func TestBlockWrite(t *testing.T) {
	more := func(n int) string { return fmt.Sprintf("+%d\n", n) }
	for _, c := range []struct {
		name string
		b    Block
		kept int
		want string
	}{
		{"empty: nothing, not even head and end", Block{Head: "H\n", End: "E\n", More: more}, 0, ""},
		{"whole", Block{Head: "H\n", Items: []string{"a\n", "b\n"}, End: "E\n", More: more}, 2, "H\na\nb\nE\n"},
		{"cut, with more", Block{Head: "H\n", Items: []string{"a\n", "b\n", "c\n"}, End: "E\n", More: more}, 1, "H\na\n+2\nE\n"},
		{"all cut", Block{Head: "H\n", Items: []string{"a\n"}, End: "E\n", More: more}, 0, "H\n+1\nE\n"},
		{"cut, no more", Block{Items: []string{"a\n", "b\n"}}, 1, "a\n"},
	} {
		var b strings.Builder
		c.b.write(&b, c.kept)
		if b.String() != c.want {
			t.Errorf("%s: got %q, want %q", c.name, b.String(), c.want)
		}
	}
}

func TestHeadAndFoot(t *testing.T) {
	for _, c := range []struct {
		doc  Doc
		want string
	}{
		{Doc{Title: "T"}, Marker + "\n## T\n\n<sub></sub>\n"},
		{Doc{Title: "T", Lead: []string{"a", "b"}, Note: "\n n \n", Foot: []string{"x", "y", "z"}},
			Marker + "\n## T\n\na\n\nb\n\nn\n\n<sub>x · y · z</sub>\n"},
		{Doc{Title: "T", Note: "  "}, Marker + "\n## T\n\n\n\n<sub></sub>\n"},
	} {
		if got := c.doc.String(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

func TestFitRefusesMisuse(t *testing.T) {
	d := newToy("")
	stray := Details([]string{"x"})
	for name, cuts := range map[string][]Cut{
		"a block not in the doc": {Prefix(stray)},
		"a block cut twice":      {Prefix(d.ledger), Drop(d.ledger)},
		"a block without a noun": {Prefix(d.doc.Blocks[1])},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			d.doc.Fit(10, cuts...)
		}()
	}
}

func TestAtRune(t *testing.T) {
	s := "a✂b" // ✂ is three bytes
	for n, want := range []string{"", "a", "a", "a", "a✂", "a✂b", "a✂b"} {
		if got := atRune(s, n); got != want {
			t.Errorf("atRune(%q, %d) = %q, want %q", s, n, got, want)
		}
	}
	if got := atRune(s, -1); got != "" {
		t.Errorf("negative n: %q", got)
	}
}

// DetailsWithin writes items while those written take no more than the
// limit, the one that crosses it included, and stands the rest in as
// unwritten: counted as cut, never kept.
func TestDetailsWithin(t *testing.T) {
	var asked []int
	item := func(i int) string { return fmt.Sprintf("<details>%d %s</details>\n", i, strings.Repeat("d", 78)) } // 100 bytes
	bl := DetailsWithin(8, 300, func(i int) string {
		asked = append(asked, i)
		return item(i)
	})
	if !slices.Equal(asked, []int{0, 1, 2, 3}) {
		t.Errorf("wrote items %v, want 0 to 3", asked)
	}
	if bl.Items[4] != unwritten || bl.cutItems(1) != 7 {
		t.Errorf("items %q: the unwritten ones are not counted as cut", bl.Items)
	}
	d := &Doc{Title: "T", Blocks: []*Block{bl}, LimitName: "the budget", Whole: "See the JSON."}
	got := d.Fit(300, Prefix(bl))
	if !strings.Contains(got, item(0)) || strings.Contains(got, "<details>1") || !strings.Contains(got, "the details of 7 autoscalers") {
		t.Errorf("cut to 300 bytes:\n%s", got)
	}
}
