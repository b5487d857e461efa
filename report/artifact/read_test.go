package artifact_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/report"
	"github.com/capreport/capreport/report/artifact"
)

// TestReadIsUnmarshal: a document read a workload at a time decodes, or
// fails, as json.Unmarshal decodes it whole, for the shapes a stream
// could get wrong: keys repeated or spelt in another case, workloads
// null, empty, absent or not a list, and what follows the document.
func TestReadIsUnmarshal(t *testing.T) {
	version := `"schemaVersion":"` + contract.SchemaVersion + `"`
	w := func(id string) string { return `{"id":"` + id + `","verdict":"pass"}` }
	for _, doc := range []string{
		`{` + version + `,"workloads":[` + w("a") + `,` + w("b") + `]}`,
		`{` + version + `,"workloads":[` + w("a") + `,` + w("b") + `],"workloads":[` + w("c") + `]}`,
		`{` + version + `,"workloads":[` + w("a") + `],"Workloads":[` + w("b") + `,` + w("c") + `]}`,
		`{` + version + `,"workloads":[]}`,
		`{` + version + `,"workloads":null}`,
		`{` + version + `}`,
		`{` + version + `,"workloads":[` + w("a") + `]}` + "  \n\t",
		`{` + version + `,"workloads":[` + w("a") + `],"root":"x","root":"y"}`,
		`{` + version + `,"workloads":[{"id":7}]}`,
		`{` + version + `,"workloads":"many"}`,
		`{` + version + `,"workloads":{"a":[1]}}`,
		`{` + version + `,"workloads":[` + w("a") + `]} {}`,
		`{` + version + `,"workloads":[` + w("a") + `]`,
		`{` + version + `,"workloads":[` + w("a") + `]}x`,
	} {
		got, err := artifact.Decode("r.json", []byte(doc), nil)
		var want contract.Report
		werr := json.Unmarshal([]byte(doc), &want)
		if (err == nil) != (werr == nil) {
			t.Errorf("%s:\nRead: %v\njson.Unmarshal: %v", doc, err, werr)
			continue
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "r.json: ") {
				t.Errorf("%s: the error does not name the file: %v", doc, err)
			}
			continue
		}
		want.Summary = contract.Summarize(&want)
		if !reflect.DeepEqual(*got, want) {
			t.Errorf("%s:\nRead %+v\njson.Unmarshal %+v", doc, got.Workloads, want.Workloads)
		}
	}
}

// TestReadWithinRefusesAnInflatedReport: a report whose timelines are
// one-digit numbers decodes to 4 times its text and more; ReadWithin
// refuses it past its bound, and reads a report capreport wrote within
// twice its size.
func TestReadWithinRefusesAnInflatedReport(t *testing.T) {
	zeros := strings.Repeat("0,", 200000) + "0"
	w := `{"id":"a","verdict":"pass","time":{"timeline":{"t":[` + zeros + `],"replicas":[` + zeros + `]}}}`
	doc := `{"schemaVersion":"` + contract.SchemaVersion + `","workloads":[` + w + `]}`
	if _, err := artifact.ReadWithin("r.json", strings.NewReader(doc), nil, int64(2*len(doc))); err == nil || !strings.Contains(err.Error(), "take more than") {
		t.Errorf("an inflated report of %d bytes read within %d: %v", len(doc), 2*len(doc), err)
	}
	if _, err := artifact.ReadWithin("r.json", strings.NewReader(doc), nil, int64(8*len(doc))); err != nil {
		t.Errorf("within 8 times its text: %v", err)
	}
	spec, err := os.ReadFile(filepath.Join("..", "testdata", "TestJSON", "specimen.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, spec); err != nil {
		t.Fatal(err)
	}
	if _, err := artifact.ReadWithin("r.json", &compact, nil, int64(2*compact.Len())); err != nil {
		t.Errorf("a report capreport wrote, within twice its text: %v", err)
	}
	huge := `{"schemaVersion":"` + contract.SchemaVersion + `","workloads":[{"id":"` + strings.Repeat("x", report.MaxWorkloadBytes) + `"}]}`
	if _, err := artifact.Decode("r.json", []byte(huge), nil); err == nil || !strings.Contains(err.Error(), "workload 0 is") {
		t.Errorf("a workload over report.MaxWorkloadBytes: %v", err)
	}
}
