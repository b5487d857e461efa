package fit

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// keep is a toy document's state: a list cut by Prefix, a section cut by
// Drop.
type keep struct {
	items int
	extra bool
}

type toy struct {
	head  string
	items []string
	extra string
}

func (d toy) assemble(k keep) string {
	var cuts []string
	if n := len(d.items) - k.items; n > 0 {
		cuts = append(cuts, fmt.Sprintf("%d items", n))
	}
	if !k.extra {
		cuts = append(cuts, "the extra")
	}
	s := d.head + Notice("the budget", cuts, "See the rest elsewhere.") + strings.Join(d.items[:k.items], "")
	if k.extra {
		s += d.extra
	}
	return s
}

func (d toy) fit(limit int) (string, bool) {
	return Fit(limit, d.assemble, keep{items: len(d.items), extra: true},
		Prefix(func(k *keep) *int { return &k.items }),
		Drop(func(k *keep) { k.extra = false }))
}

// reference cuts the toy the slow way: every count tried, largest first,
// then the extra dropped with the count the search left.
func (d toy) reference(limit int) (string, bool) {
	n := len(d.items)
	for ; n > 0; n-- {
		if s := d.assemble(keep{items: n, extra: true}); len(s) <= limit {
			return s, true
		}
	}
	for _, k := range []keep{{extra: true}, {}} {
		if s := d.assemble(k); len(s) <= limit {
			return s, true
		}
	}
	return d.assemble(keep{}), false
}

func TestFitCutsInOrder(t *testing.T) {
	item := strings.Repeat("i", 39) + "\n"
	d := toy{head: "# head\n\n", items: []string{item, item, item, item, item}, extra: strings.Repeat("x", 99) + "\n"}
	full := d.assemble(keep{items: 5, extra: true})
	if s, ok := d.fit(len(full)); !ok || s != full {
		t.Errorf("a body that fits was cut: %q", s)
	}
	for limit := range len(full) + 2 {
		s, ok := d.fit(limit)
		want, wantOK := d.reference(limit)
		if s != want || ok != wantOK {
			t.Errorf("limit %d: got %q, %v\nwant %q, %v", limit, s, ok, want, wantOK)
		}
	}
	// The list goes first, from its end; the extra stays while that is
	// enough.
	s, _ := d.fit(len(full) - 1)
	if want := d.assemble(keep{items: 3, extra: true}); s != want {
		t.Errorf("one byte short:\n got %q\nwant %q", s, want)
	}
	if !strings.Contains(s, "> ✂️ **Cut to fit the budget:** 2 items. See the rest elsewhere.\n\n") {
		t.Errorf("notice: %q", s)
	}
	// Then the extra; the list does not grow back into the room it left.
	limit := len(d.assemble(keep{items: 0, extra: true})) - 1
	if s, ok := d.fit(limit); !ok || s != d.assemble(keep{}) {
		t.Errorf("without the extra: %q", s)
	}
	// Too small for the head: the last assembly, not fitting.
	if s, ok := d.fit(3); ok || s != d.assemble(keep{}) {
		t.Errorf("limit 3: %q, %v", s, ok)
	}
}

func TestLargest(t *testing.T) {
	for hi := range 20 {
		for want := 0; want <= hi; want++ {
			asked := 0
			got := Largest(hi, func(n int) bool {
				asked++
				if n == 0 {
					t.Fatal("fits(0) asked")
				}
				return n <= want
			})
			if got != want {
				t.Errorf("Largest(%d) = %d, want %d", hi, got, want)
			}
			if asked > 6 {
				t.Errorf("Largest(%d) asked %d times", hi, asked)
			}
		}
	}
}

func TestNotice(t *testing.T) {
	if got := Notice("x", nil, "All is in the JSON."); got != "" {
		t.Errorf("nothing cut: %q", got)
	}
	got := Notice("GitHub's limit", []string{"the chart", "2 ledger rows"}, "All is in the JSON.")
	if want := "> ✂️ **Cut to fit GitHub's limit:** the chart, 2 ledger rows. All is in the JSON.\n\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestAtLine(t *testing.T) {
	head := "# head\n\n"
	s := head + "line one\nline two ✂ two\nline three\n"
	tail := "\n…cut\n"
	if got := AtLine(s, len(s), len(head), tail); got != s {
		t.Errorf("a fitting body was cut: %q", got)
	}
	for limit := 0; limit < len(s); limit++ {
		got := AtLine(s, limit, len(head), tail)
		if !strings.HasSuffix(got, tail) || !utf8.ValidString(got) {
			t.Fatalf("limit %d: %q", limit, got)
		}
		if limit >= len(tail) && len(got) > limit {
			t.Errorf("limit %d: %d bytes", limit, len(got))
		}
		body := strings.TrimSuffix(got, tail)
		if !strings.HasPrefix(s, body) {
			t.Errorf("limit %d: %q is not a prefix", limit, body)
		}
		// Past the head, the cut is at a line break when there is one.
		if len(body) > len(head) && s[len(body)] != '\n' && strings.Contains(body[len(head)+1:], "\n") {
			t.Errorf("limit %d: cut inside a line: %q", limit, body)
		}
	}
	if got := AtLine(s, len(head)+3, len(head), ""); got != head+"lin" {
		t.Errorf("no line break after the head: %q", got)
	}
}

func TestAtRune(t *testing.T) {
	s := "a✂b" // ✂ is three bytes
	for n, want := range []string{"", "a", "a", "a", "a✂", "a✂b", "a✂b"} {
		if got := AtRune(s, n); got != want {
			t.Errorf("AtRune(%q, %d) = %q, want %q", s, n, got, want)
		}
	}
	if got := AtRune(s, -1); got != "" {
		t.Errorf("negative n: %q", got)
	}
}

func TestWriteList(t *testing.T) {
	more := func(n int) string { return fmt.Sprintf("…and %d more\n", n) }
	for _, c := range []struct {
		items []string
		kept  int
		want  string
	}{
		{nil, 0, ""},
		{[]string{"a\n", "b\n"}, 2, "H\na\nb\n\n"},
		{[]string{"a\n", "b\n", "c\n"}, 1, "H\na\n…and 2 more\n\n"},
		{[]string{"a\n"}, 0, "H\n…and 1 more\n\n"},
	} {
		var b strings.Builder
		WriteList(&b, "H\n", c.items, c.kept, more)
		if b.String() != c.want {
			t.Errorf("%q kept %d: got %q, want %q", c.items, c.kept, b.String(), c.want)
		}
	}
}
