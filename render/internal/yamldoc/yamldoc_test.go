package yamldoc

import (
	"errors"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

type decodeCase struct {
	name     string
	in       string
	lines    []int          // line of each object
	first    map[string]any // the first object, if checked
	problems []int          // lines of documents that failed
	check    func(t *testing.T, objs []Raw)
}

func (c decodeCase) run(t *testing.T) {
	objs, problems, err := Decode([]byte(c.in), 100)
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, o := range objs {
		lines = append(lines, o.Line)
	}
	if !reflect.DeepEqual(lines, c.lines) {
		t.Errorf("lines %v, want %v", lines, c.lines)
	}
	var plines []int
	for _, p := range problems {
		plines = append(plines, p.Line)
	}
	if !reflect.DeepEqual(plines, c.problems) {
		t.Errorf("problem lines %v, want %v (%v)", plines, c.problems, problems)
	}
	if c.first != nil && (len(objs) == 0 || !reflect.DeepEqual(objs[0].Doc, c.first)) {
		t.Errorf("first object %#v, want %#v", objs, c.first)
	}
	if c.check != nil {
		c.check(t, objs)
	}
}

func TestDecodeStream(t *testing.T) {
	cases := []decodeCase{
		{name: "single", in: "apiVersion: v1\nkind: A\n", lines: []int{1},
			first: map[string]any{"apiVersion": "v1", "kind": "A"}},
		{name: "leading marker and comments", in: "---\n# c\n\napiVersion: v1\nkind: A\n---\n---\n...\n---\nkind: B\n", lines: []int{4, 10}},
		{name: "content on the marker line", in: "--- {kind: A}\n--- \nkind: B\n", lines: []int{1, 3}},
		{name: "marker-like text inside a value", in: "kind: A\ndata:\n  x: |\n    ---\n    y\n", lines: []int{1}},
		{name: "types", in: "i: 3\nf: 1.5\nb: true\ns: 'on'\nyes: no\nn: null\nbig: 18446744073709551615\nt: 2001-12-14\nbin: !!binary aGk=\n80: port\ninf: .inf\n",
			lines: []int{1},
			first: map[string]any{"i": int64(3), "f": 1.5, "b": true, "s": "on", "yes": "no", "n": nil, "big": float64(18446744073709551615),
				"t": "2001-12-14", "bin": "aGk=", "80": "port", "inf": ".inf"}},
		{name: "merge keys", in: "base: &b {x: 1, y: 2}\nm:\n  <<: *b\n  y: 3\n", lines: []int{1},
			first: map[string]any{"base": map[string]any{"x": int64(1), "y": int64(2)}, "m": map[string]any{"x": int64(1), "y": int64(3)}}},
		{name: "list kinds expand", in: "apiVersion: v1\nkind: ConfigMapList\nitems:\n- kind: A\n- kind: B\n  x: 1\n", lines: []int{4, 5}},
		{name: "bad documents do not stop the stream", in: "kind: [\n---\n- a\n---\nscalar\n---\nkind: OK\n", lines: []int{7}, problems: []int{1, 3, 5}},
		{name: "complex key", in: "? [a]\n: b\n", problems: []int{1}},
		{name: "empty", in: "\n\n---\n# only a comment\n"},
		{name: "crlf", in: "kind: A\r\n---\r\nkind: B\r\n", lines: []int{1, 3}},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}

func TestDecodeStreamObjectLimit(t *testing.T) {
	in := strings.Repeat("---\nkind: A\n", 11)
	if _, _, err := Decode([]byte(in), 10); !errors.Is(err, ErrTooManyObjects) {
		t.Errorf("err %v, want ErrTooManyObjects", err)
	}
	if objs, _, err := Decode([]byte(in), 11); err != nil || len(objs) != 11 {
		t.Errorf("%d objects, err %v", len(objs), err)
	}
}

// billionLaughs builds an alias bomb of the given depth and fan-out: it
// would expand to fanout^depth nodes.
func billionLaughs(depth, fanout int) string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\ndata:\n  l0: &l0 [")
	b.WriteString(strings.TrimSuffix(strings.Repeat(`"lol",`, fanout), ","))
	b.WriteString("]\n")
	for i := 1; i <= depth; i++ {
		b.WriteString("  l" + itoa(i) + ": &l" + itoa(i) + " [")
		b.WriteString(strings.TrimSuffix(strings.Repeat("*l"+itoa(i-1)+",", fanout), ","))
		b.WriteString("]\n")
	}
	return b.String()
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestAliasBombBoundedMemory(t *testing.T) {
	bomb := []byte(billionLaughs(12, 10)) // 10^12 nodes if expanded
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	objs, problems, err := Decode(bomb, 100)
	errAlias := CheckAliases(bomb)
	runtime.ReadMemStats(&after)
	if err != nil || len(objs) != 0 || len(problems) != 1 || !errors.Is(problems[0].Err, ErrAliasBudget) {
		t.Fatalf("objs %d, problems %v, err %v: want the bomb refused", len(objs), problems, err)
	}
	if !errors.Is(errAlias, ErrAliasBudget) {
		t.Errorf("CheckAliases: %v", errAlias)
	}
	if d := after.TotalAlloc - before.TotalAlloc; d > 64<<20 {
		t.Errorf("refusing the bomb allocated %d MB, want < 64 MB", d>>20)
	}
	// Legitimate anchors stay well within the budget.
	ok := "kind: A\nx: &x {a: 1, b: [1, 2, 3]}\ny: *x\nz: [*x, *x, *x]\n"
	if objs, problems, err := Decode([]byte(ok), 10); err != nil || len(problems) != 0 || len(objs) != 1 {
		t.Errorf("legit anchors: %v %v", problems, err)
	}
}

func FuzzDecodeStream(f *testing.F) {
	for _, s := range []string{
		"apiVersion: v1\nkind: A\nmetadata: {name: a}\n",
		"---\nkind: List\nitems: [{kind: A}, 3]\n...\n--- x\n",
		"a: &a [1, *a]\n",
		billionLaughs(4, 4),
		"<<: {a: 1}\nb: !!binary aGk=\n? [c]\n: d\n",
		"- [[[[[]]]]]\n",
		"--- |\n  text\n---\n\t\n",
		"kind: A\nmetadata:\n  annotations: &x {a: b}\n---\nmetadata:\n  <<: {annotations: {c: d}}\n  annotations:\n    <<: [*x]\n    e: f\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		objs, problems, err := Decode(data, 50)
		if err != nil && !errors.Is(err, ErrTooManyObjects) {
			t.Fatalf("unexpected error %v", err)
		}
		lines := strings.Count(string(data), "\n") + 1
		for _, o := range objs {
			if o.Doc == nil || o.Line < 1 || o.Line > lines {
				t.Fatalf("object %v at line %d of %d", o.Doc, o.Line, lines)
			}
			md, _ := o.Doc["metadata"].(map[string]any)
			ann, _ := md["annotations"].(map[string]any)
			for k, l := range o.AnnLines {
				if _, ok := ann[k]; !ok || l < 1 || l > lines {
					t.Fatalf("annotation %q at line %d of %d, annotations %v", k, l, lines, ann)
				}
			}
		}
		for _, p := range problems {
			if p.Err == nil || p.Line < 1 {
				t.Fatalf("problem %+v", p)
			}
		}
		_ = CheckAliases(data)
		segs := splitDocuments(data)
		total := 0
		for _, s := range segs {
			total += len(s.text)
		}
		if total != len(data) {
			t.Fatalf("segments hold %d bytes of %d", total, len(data))
		}
	})
}
