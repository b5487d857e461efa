// Command fidelity writes the table of docs/fidelity.md from the verdicts
// the twin's tests leave in TWIN_OUT (scripts/twin.sh runs both): for each
// of the essays' falsification criteria, the essay's figure, capreport's
// prediction for the same settings and what the genuine control plane did.
//
// Usage: go run ./fidelity -in DIR -doc ../../docs/fidelity.md [-note TEXT]
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// The table sits between these lines of the document; everything else in
// it is prose kept by hand.
const (
	begin = "<!-- twin table: written by scripts/twin.sh, do not edit -->"
	end   = "<!-- end of twin table -->"
)

// criterion is what the essays say of one case; rank orders the table.
type criterion struct {
	rank               int
	part, label, essay string
}

var criteria = map[string]criterion{
	"size-f1-3x":             {1, "1", "F1, F2 (3x)", "orders 7, 8, then 14, 16 one round later; capacity at 105 s; peak 16"},
	"size-f1-5x":             {2, "1", "F1, F2 (5x)", "orders 7, 8, then 14, 16 one round later; capacity at 225 s; peak 32"},
	"size-f3-5x-limit-1000m": {3, "1", "F3", "rises to the 20 pods needed and no further; capacity met at the step"},
	"size-f4-3x-target-93":   {4, "1", "F4", "no scale-up; status 100 % against 93 %"},
	"time-f1-d60-w300":       {5, "2", "F1 (D 60 s)", "hunts, 6 to 35 pods"},
	"time-f1-d150-w300":      {6, "2", "F1 (D 150 s)", "rests, 19 to 21 pods"},
	"time-f2-d60-w60":        {7, "2", "F2 (W 60 s)", "rests, 19 to 22 pods"},
	"time-f3-d1-w300":        {8, "2", "F3 (W 300 s)", "hunts from 1 pod to the ceiling of 100"},
	"time-f3-d1-w0":          {9, "2", "F3 (no window)", "hunts from 1 pod to the ceiling of 100"},
	// Not the essays': the scale-from-zero law (docs/theory.md), with
	// KEDA's operator polling every 5 s, a dead time of 10 s and 2
	// messages a second.
	"zero-z-a0-late":  {10, "KEDA", "scale from zero (A 0, message 0.3 s after a poll)", "the law: at most W₀ = 0 + 5 + 10 = 15 s"},
	"zero-z-a3-late":  {11, "KEDA", "scale from zero (A 3, message 0.3 s after a poll)", "the law: at most W₀ = 1.5 + 5 + 10 = 16.5 s"},
	"zero-z-a3-early": {12, "KEDA", "scale from zero (A 3, message 4.2 s after a poll)", "the law: at most W₀ = 1.5 + 5 + 10 = 16.5 s"},
}

type scaleEvent struct {
	T        int64 `json:"T"`
	From, To int32
}

type figures struct {
	Orders   []scaleEvent `json:"orders"`
	Capacity *int64       `json:"capacity"`
	Peak     *int32       `json:"peak"`
	Status   *int32       `json:"status"`
	Min      *int32       `json:"min"`
	Max      *int32       `json:"max"`
	Hunts    *bool        `json:"hunts"`
	Wait     *float64     `json:"wait"`
	Order    *float64     `json:"order"`
}

type verdict struct {
	Case      string   `json:"case"`
	From      *int64   `json:"from"`
	To        int64    `json:"to"`
	Predicted figures  `json:"predicted"`
	Observed  figures  `json:"observed"`
	Agree     bool     `json:"agree"`
	Why       []string `json:"why"`
	name      string
}

func main() {
	in := flag.String("in", "", "directory of the twin's verdicts (TWIN_OUT)")
	doc := flag.String("doc", "", "the document whose table to rewrite")
	note := flag.String("note", "", "a line under the table: how and where it was produced")
	flag.Parse()
	if err := run(*in, *doc, *note); err != nil {
		fmt.Fprintln(os.Stderr, "fidelity:", err)
		os.Exit(1)
	}
}

func run(in, doc, note string) error {
	verdicts, err := read(in)
	if err != nil {
		return err
	}
	table := render(verdicts, note)
	if doc == "" {
		fmt.Print(table)
		return nil
	}
	text, err := os.ReadFile(doc)
	if err != nil {
		return err
	}
	i, j := bytes.Index(text, []byte(begin)), bytes.Index(text, []byte(end))
	if i < 0 || j < i {
		return fmt.Errorf("%s has no %q … %q", doc, begin, end)
	}
	var out bytes.Buffer
	out.Write(text[:i+len(begin)])
	out.WriteString("\n\n" + table + "\n")
	out.Write(text[j:])
	return os.WriteFile(doc, out.Bytes(), 0o644)
}

func read(dir string) ([]verdict, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, errors.New("no verdicts in " + dir)
	}
	var out []verdict
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var v verdict
		if err := json.Unmarshal(b, &v); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		v.name = strings.TrimSuffix(filepath.Base(p), ".json")
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return order(out[i].name) < order(out[j].name) })
	return out, nil
}

func order(name string) string {
	c, ok := criteria[name]
	if !ok {
		return "99 " + name
	}
	return fmt.Sprintf("%02d", c.rank)
}

func render(vs []verdict, note string) string {
	var b strings.Builder
	b.WriteString("| part | criterion | the essay | capreport predicts | the twin observed | agreement |\n")
	b.WriteString("|---|---|---|---|---|---|\n")
	for _, v := range vs {
		c, ok := criteria[v.name]
		if !ok {
			c = criterion{rank: 99, part: "?", label: v.name, essay: "(not in the essays)"}
		}
		agree := "agrees"
		if !v.Agree {
			agree = "**differs**: " + strings.Join(v.Why, "; ")
		}
		span := ""
		if v.From != nil {
			span = fmt.Sprintf(" (seconds %d to %d)", *v.From, v.To)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", c.part, c.label+span, c.essay, describe(v.Predicted), describe(v.Observed), agree)
	}
	if note != "" {
		b.WriteString("\n" + note + "\n")
	}
	return b.String()
}

func describe(f figures) string {
	var parts []string
	if f.Orders != nil || f.Peak != nil {
		var orders []string
		for _, e := range f.Orders {
			orders = append(orders, fmt.Sprintf("%d @%d s", e.To, e.T))
		}
		if len(orders) == 0 {
			orders = []string{"none"}
		}
		label := "orders "
		if f.Min != nil {
			label = "orders in the first 90 s: " // part 2: the opening
		}
		parts = append(parts, label+strings.Join(orders, ", "))
	}
	if f.Capacity != nil {
		if *f.Capacity < 0 {
			parts = append(parts, "capacity never met")
		} else {
			parts = append(parts, fmt.Sprintf("capacity at %d s", *f.Capacity))
		}
	}
	if f.Peak != nil {
		parts = append(parts, fmt.Sprintf("peak %d", *f.Peak))
	}
	if f.Status != nil {
		parts = append(parts, fmt.Sprintf("status %d %%", *f.Status))
	}
	if f.Wait != nil && f.Order != nil {
		parts = append(parts, fmt.Sprintf("the first message waits %.2f s; KEDA scales from zero %.2f s after the activating message", *f.Wait, *f.Order))
	}
	if f.Min != nil && f.Max != nil {
		verdict := "rests"
		if f.Hunts != nil && *f.Hunts {
			verdict = "hunts"
		}
		parts = append(parts, fmt.Sprintf("%s, %d to %d pods", verdict, *f.Min, *f.Max))
	}
	return strings.Join(parts, "; ")
}
