package artifact_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/capreport/capreport/contract"
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
