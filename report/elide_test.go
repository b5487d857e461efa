package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestElideNumbersChangesNothing: the validator finds the same with the
// lists of numbers elided as without, on a report whose numbers pass and
// on reports with one number in doubt or wrong in each kind of list, and
// the elision does happen on the timelines.
func TestElideNumbersChangesNothing(t *testing.T) {
	good, fast, slow := elideFixture(t)
	cases := map[string]func(w map[string]any){
		"as written": func(map[string]any) {},
	}
	for _, field := range []string{"t", "replicas", "serving", "needed", "backlog", "waitSeconds"} {
		for name, v := range map[string]any{
			"negative": json.Number("-1"), "fraction": json.Number("1.5"), "on zero": json.Number("0"),
			"integral float": json.Number("2.0"), "exponent": json.Number("1e2"), "beyond float64": json.Number("1e400"),
			"tiny": json.Number("1e-400"), "string": "7", "null": nil, "huge integer": json.Number("9007199254740993"),
		} {
			cases[field+" "+name] = func(w map[string]any) {
				for _, tl := range timelines(w) {
					if list, ok := tl[field].([]any); ok && len(list) > 1 {
						list[1] = v
					}
				}
			}
		}
	}
	for name, mutate := range cases {
		doc := mutated(t, good, mutate)
		want, got := errText(slow.Validate(doc)), errText(fast.Validate(doc))
		if got != want {
			t.Errorf("%s: elided %q, whole %q", name, got, want)
		}
		if (name == "t string" || name == "replicas string" || name == "needed string") && want == "" {
			t.Errorf("%s: the mutation reached no list", name)
		}
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(mustWorkload(t, good)))
	if err != nil {
		t.Fatal(err)
	}
	elideNumbers(fast.workload, inst)
	if left := numberLists(inst); len(left) > 0 {
		t.Errorf("lists of numbers not elided: %v", left)
	}
}

// numberLists are the lists of numbers under v, by key.
func numberLists(v any) []string {
	var found []string
	switch v := v.(type) {
	case map[string]any:
		for k, val := range v {
			if list, ok := val.([]any); ok && len(list) > 0 {
				if _, num := list[0].(json.Number); num {
					found = append(found, k)
				}
			}
			found = append(found, numberLists(val)...)
		}
	case []any:
		for _, item := range v {
			found = append(found, numberLists(item)...)
		}
	}
	return found
}

// elideFixture is the specimen report and two validators: one that
// elides the lists of numbers, one that leaves every number to the
// schema.
func elideFixture(t testing.TB) (good []byte, fast, slow *Validator) {
	t.Helper()
	good, err := os.ReadFile(filepath.Join("testdata", "TestJSON", "specimen.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	if fast, err = NewValidator(); err != nil {
		t.Fatal(err)
	}
	slow, _ = NewValidator()
	slow.keepNumbers = true
	return good, fast, slow
}

// mutated is doc with mutate applied to each workload, numbers kept as
// written.
func mutated(t testing.TB, doc []byte, mutate func(w map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	for _, w := range m["workloads"].([]any) {
		mutate(w.(map[string]any))
	}
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// timelines are a workload's Size and Time timelines.
func timelines(w map[string]any) []map[string]any {
	var out []map[string]any
	if size, _ := w["size"].(map[string]any); size != nil {
		ol, _ := size["overloads"].([]any)
		for _, o := range ol {
			if tl, _ := o.(map[string]any)["timeline"].(map[string]any); tl != nil {
				out = append(out, tl)
			}
		}
	}
	if tm, _ := w["time"].(map[string]any); tm != nil {
		if tl, _ := tm["timeline"].(map[string]any); tl != nil {
			out = append(out, tl)
		}
	}
	return out
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// mustWorkload is the text of the first workload of doc with a Size bill.
func mustWorkload(t *testing.T, doc []byte) []byte {
	var r struct{ Workloads []json.RawMessage }
	if err := json.Unmarshal(doc, &r); err != nil {
		t.Fatal(err)
	}
	for _, w := range r.Workloads {
		if bytes.Contains(w, []byte(`"timeline"`)) {
			return w
		}
	}
	t.Fatal("no workload with a Size bill")
	return nil
}

// FuzzElideNumbers: whatever number (or other value) stands in a
// timeline, the validator finds the same with the lists of numbers elided
// as without.
func FuzzElideNumbers(f *testing.F) {
	for _, s := range []string{"0", "-1", "1.5", "2.0", "1e2", "1e400", "-1e-400", "9007199254740993", "-0", "0.0000001", "x"} {
		f.Add(s, uint8(0), uint8(1))
	}
	good, fast, slow := elideFixture(f)
	fields := []string{"t", "replicas", "serving", "needed", "backlog", "waitSeconds"}
	f.Fuzz(func(t *testing.T, s string, field, at uint8) {
		var v any = s
		if json.Valid([]byte(s)) {
			v = json.RawMessage(s)
		}
		doc := mutated(t, good, func(w map[string]any) {
			for _, tl := range timelines(w) {
				if list, ok := tl[fields[int(field)%len(fields)]].([]any); ok && len(list) > 0 {
					list[int(at)%len(list)] = v
				}
			}
		})
		if want, got := errText(slow.Validate(doc)), errText(fast.Validate(doc)); got != want {
			t.Errorf("%q in %s: elided %q, whole %q", s, fields[int(field)%len(fields)], got, want)
		}
	})
}
