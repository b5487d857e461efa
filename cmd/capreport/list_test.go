package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/testutil"
)

func TestListJSON(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "extract", "repo")
	var out, errOut bytes.Buffer
	code := run([]string{"list", dir, "--root", dir, "--format", "json"}, &cmdutil.IOStreams{Out: &out, ErrOut: &errOut})
	if code != cmdutil.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var got struct {
		Autoscalers []struct {
			ID          string
			Kind        string
			Namespace   string
			MinReplicas int32
			MaxReplicas int32
			Signal      string
			Source      struct{ Source, File string }
			Target      struct {
				Kind, Name string
				Found      bool
			}
			Metrics     []struct{ Name, Target, Signal string }
			Assumptions []struct {
				Key   string
				Value any
				From  string
				File  string
				Line  int
			}
			Findings []struct{ Check string }
		}
		Sources []struct {
			Path, ValueSet, Status string
			Objects                int
		}
		Findings []any
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out.String())
	}
	var ids []string
	for _, a := range got.Autoscalers {
		ids = append(ids, a.ID)
	}
	want := []string{"batch/HorizontalPodAutoscaler/worker", "prod/HorizontalPodAutoscaler/api-server", "staging/HorizontalPodAutoscaler/api-server"}
	if !reflect.DeepEqual(ids, want) {
		t.Fatalf("autoscalers %v, want %v", ids, want)
	}
	prod := got.Autoscalers[1]
	if prod.MinReplicas != 3 || prod.MaxReplicas != 30 || prod.Signal != "saturating" || prod.Source.Source != "charts/api@prod" ||
		prod.Target.Kind != "Deployment" || prod.Target.Name != "api-server" || !prod.Target.Found ||
		len(prod.Metrics) != 1 || prod.Metrics[0].Target != "65%" {
		t.Errorf("prod autoscaler: %+v", prod)
	}
	var dead, rate bool
	for _, as := range prod.Assumptions {
		switch as.Key {
		case "deadTimeSeconds":
			dead = as.Value == 40.0 && as.From == "config" && as.Line == 21 && strings.HasSuffix(as.File, ".capreport.yaml")
		case "podRate":
			rate = as.Value == 80.0 && as.From == "config"
		}
	}
	if !dead || !rate {
		t.Errorf("assumptions with provenance: %+v", prod.Assumptions)
	}
	if len(got.Sources) != 3 || got.Sources[0].Status != "rendered" || got.Sources[0].ValueSet != "prod" {
		t.Errorf("sources: %+v", got.Sources)
	}
	if got.Findings == nil {
		t.Error("findings must be a list, even when empty")
	}
}

func TestListText(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "extract", "repo")
	var out, errOut bytes.Buffer
	if code := run([]string{"list", dir, "--root", dir}, &cmdutil.IOStreams{Out: &out, ErrOut: &errOut}); code != cmdutil.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, s := range []string{
		"Autoscalers: 3",
		"HorizontalPodAutoscaler prod/api-server (autoscaling/v2)",
		"source    charts/api/templates/hpa.yaml:1 (charts/api@prod)",
		"replicas  min 3, max 30",
		"Resource  cpu  Utilization 65%  saturating",
		"deadTime                 1m15s",
		"annotation deploy/base/hpa.yaml:1",
		"warning assumption-default: dead time not given for 1 autoscaler; each uses the default 1m30s: staging/HorizontalPodAutoscaler/api-server",
		"Sources: 3",
		"deploy/overlays/prod  kustomize  2 object(s)  rendered",
	} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("output lacks %q:\n%s", s, out.String())
		}
	}
}

func TestListErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"list", ".", "--format", "yaml"}, `--format: "yaml" is not one of text, json`},
		{[]string{"list", "does/not/exist"}, "no such file or directory"},
		{[]string{"list", "a", "b"}, "accepts at most 1 arg"},
	} {
		var out, errOut bytes.Buffer
		if code := run(c.args, &cmdutil.IOStreams{Out: &out, ErrOut: &errOut}); code != cmdutil.ExitError {
			t.Errorf("%v: exit %d, want %d", c.args, code, cmdutil.ExitError)
		}
		if !strings.Contains(errOut.String(), c.want) {
			t.Errorf("%v: stderr %q lacks %q", c.args, errOut.String(), c.want)
		}
	}
}

// `capreport list --format json` is the inventory contract: its output on
// the example, a calibrated repository, a GitOps fixture and the real
// corpora validates against report/schema/inventory.v1.json (whose fields
// report's TestInventorySchemaDocumentsEveryField holds to the Go types).
func TestListJSONMatchesInventorySchema(t *testing.T) {
	schemaPath := filepath.Join("..", "..", "report", "schema", "inventory.v1.json")
	raw, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("https://capreport.io/schema/inventory.v1.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("https://capreport.io/schema/inventory.v1.json")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	measured := t.TempDir()
	testutil.WriteTree(t, measured, map[string]string{"app.yaml": readMeasuredApp(t), ".capreport.yaml": measuredTestConfig})
	dirs := []string{
		filepath.Join("..", "..", "examples", "shop"),
		measured, // measured records
		filepath.Join("..", "..", "testdata", "extract"), // behaviors, KEDA, every HPA version
		filepath.Join("..", "..", "testdata", "gitops"),
		filepath.Join("..", "..", "testdata", "extract", "repo"),
		filepath.Join("..", "..", "testdata", "scale-to-zero"), // KEDA floors, activations
	}
	if _, ok := testutil.Shared(t, "corpus"); ok {
		dirs = append(dirs, filepath.Join("..", "..", "..", "shared", "corpus"), corpusGitOps)
	}
	for _, dir := range dirs {
		var out, errOut bytes.Buffer
		if code := run([]string{"list", dir, "--format", "json"}, &cmdutil.IOStreams{Out: &out, ErrOut: &errOut}); code == cmdutil.ExitError {
			t.Fatalf("%s: exit %d: %s", dir, code, errOut.String())
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out.Bytes()))
		if err != nil {
			t.Fatalf("%s: not JSON: %v", dir, err)
		}
		if err := sch.Validate(inst); err != nil {
			t.Errorf("%s: the inventory does not match its schema: %v", dir, err)
		}
		if m, _ := inst.(map[string]any); m["schemaVersion"] != contract.InventorySchemaVersion {
			t.Errorf("%s: schemaVersion %v", dir, m["schemaVersion"])
		}
		seen[dir] = strings.Contains(out.String(), `"measured": {`) || strings.Contains(out.String(), `"behavior": {`)
	}
	if !seen[measured] || !seen[filepath.Join("..", "..", "testdata", "extract")] {
		t.Errorf("the fixtures no longer hold measured records and behaviors: %v", seen)
	}
}
