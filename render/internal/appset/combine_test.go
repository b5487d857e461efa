package appset

import (
	"fmt"
	"strings"
	"testing"
)

// Ported from matrix_test.go (TestMatrixGenerate, TestMatrixGenerateGoTemplate, the list x git cases,
// TestMatrixGenerateListElementsYaml) with the repo server replaced by an in-memory tree.
func TestMatrixGenerator(t *testing.T) {
	for _, c := range matrixCases {
		t.Run(c.name, c.run)
	}
}

const (
	matrixGitDirs = `{git: {repoURL: RepoURL, revision: HEAD, directories: [{path: "*"}]}}`
	matrixList    = `{list: {elements: [{cluster: Cluster, url: Url}]}}`
)

var matrixApps = dirsRepo("app1", "app2")

var matrixCases = []genCase{
	{
		name:      "happy flow - generate params",
		generator: `{matrix: {generators: [` + matrixGitDirs + `, ` + matrixList + `]}}`,
		repo:      matrixApps,
		want: []map[string]any{
			{"path": "app1", "path.basename": "app1", "path.basenameNormalized": "app1", "path[0]": "app1", "cluster": "Cluster", "url": "Url"},
			{"path": "app2", "path.basename": "app2", "path.basenameNormalized": "app2", "path[0]": "app2", "cluster": "Cluster", "url": "Url"},
		},
	},
	{
		name:       "happy flow - generate params (goTemplate)",
		goTemplate: true,
		generator:  `{matrix: {generators: [` + matrixGitDirs + `, ` + matrixList + `]}}`,
		repo:       matrixApps,
		want: []map[string]any{
			{"path": map[string]any{"path": "app1", "basename": "app1", "basenameNormalized": "app1", "segments": []string{"app1"}}, "cluster": "Cluster", "url": "Url"},
			{"path": map[string]any{"path": "app2", "basename": "app2", "basenameNormalized": "app2", "segments": []string{"app2"}}, "cluster": "Cluster", "url": "Url"},
		},
	},
	{
		name:      "happy flow - generate params from two lists",
		generator: `{matrix: {generators: [{list: {elements: [{a: "1"}, {a: "2"}]}}, {list: {elements: [{b: "1"}, {b: "2"}]}}]}}`,
		want:      []map[string]any{{"a": "1", "b": "1"}, {"a": "1", "b": "2"}, {"a": "2", "b": "1"}, {"a": "2", "b": "2"}},
	},
	{
		name:       "parameter override: first list elements take precedence",
		goTemplate: true,
		generator: `{matrix: {generators: [
				{list: {elements: [{booleanFalse: false, booleanTrue: true, stringFalse: "false", stringTrue: "true"}]}},
				{list: {elements: [{booleanFalse: true, booleanTrue: false, stringFalse: "true", stringTrue: "false"}]}}]}}`,
		want: []map[string]any{{"booleanFalse": false, "booleanTrue": true, "stringFalse": "false", "stringTrue": "true"}},
	},
	{
		name:      "legacy: a key both children set with different values is an error",
		generator: `{matrix: {generators: [{list: {elements: [{a: "1"}]}}, {list: {elements: [{a: "2"}]}}]}}`,
		wantErr:   "found duplicate key a with different value",
	},
	{
		name:      "returns error if there is less than two base generators",
		generator: `{matrix: {generators: [` + matrixList + `]}}`,
		wantErr:   "found less than two generators, Matrix support only two",
	},
	{
		name:      "returns error if there is more than two base generators",
		generator: `{matrix: {generators: [` + matrixList + `, ` + matrixList + `, ` + matrixList + `]}}`,
		wantErr:   "found more than two generators, Matrix support only two",
	},
	{
		name:      "returns error if there is more than one inner generator in the first base generator",
		generator: `{matrix: {generators: [{list: {elements: [{a: "1"}]}, git: {repoURL: RepoURL, directories: [{path: "*"}]}}, ` + matrixList + `]}}`,
		repo:      matrixApps,
		wantErr:   "found more than one generator in matrix.Generators",
	},
	{
		name:      "TestGitGenerator_GenerateParams_list_x_git_matrix_generator",
		generator: `{matrix: {generators: [{list: {elements: [{some: value}]}}, {git: {repoURL: "https://git.example.com", files: [{path: some/path.json}]}}]}}`,
		repo:      newRepo(map[string]string{"some/path.json": "test: content"}),
		want: []map[string]any{{
			"path": "some", "path.basename": "some", "path.basenameNormalized": "some", "path.filename": "path.json",
			"path.filenameNormalized": "path.json", "path[0]": "some", "some": "value", "test": "content",
		}},
	},
	{
		name:       "TestGitGenerator_GenerateParams_list_x_git_matrix_generator_go_templates_values",
		goTemplate: true,
		generator: `{matrix: {generators: [{list: {elements: [{some: value}]}},
				{git: {repoURL: "https://git.example.com", files: [{path: some/path.json}], values: {foo: "{{.path.basename}}"}}}]}}`,
		repo: newRepo(map[string]string{"some/path.json": "test: content"}),
		want: []map[string]any{{
			"path": map[string]any{"basename": "some", "basenameNormalized": "some", "filename": "path.json",
				"filenameNormalized": "path.json", "path": "some", "segments": []string{"some"}},
			"some": "value", "test": "content", "values": map[string]any{"foo": "some"},
		}},
	},
	{
		name:       "TestMatrixGenerateListElementsYaml",
		goTemplate: true,
		generator: `{matrix: {generators: [{git: {repoURL: RepoURL, files: [{path: path/dir/file_name.yaml}]}},
				{list: {elements: [], elementsYaml: "{{ .foo.bar | toJson }}"}}]}}`,
		repo: newRepo(map[string]string{"path/dir/file_name.yaml": "foo:\n  bar:\n  - {chart: a, version: '1'}\n  - {chart: b, version: '2'}\n"}),
		want: func() []map[string]any {
			bar := []any{map[string]any{"chart": "a", "version": "1"}, map[string]any{"chart": "b", "version": "2"}}
			path := map[string]any{"basename": "dir", "basenameNormalized": "dir", "filename": "file_name.yaml",
				"filenameNormalized": "file-name.yaml", "path": "path/dir", "segments": []string{"path", "dir"}}
			return []map[string]any{
				{"chart": "a", "version": "1", "foo": map[string]any{"bar": bar}, "path": path},
				{"chart": "b", "version": "2", "foo": map[string]any{"bar": bar}, "path": path},
			}
		}(),
	},
	{
		name:       "the second child is interpolated with the first's parameters",
		goTemplate: true,
		generator: `{matrix: {generators: [{list: {elements: [{env: dev}, {env: prod}]}},
				{git: {repoURL: RepoURL, directories: [{path: "envs/{{.env}}/*"}]}}]}}`,
		repo: dirsRepo("envs/dev/a", "envs/prod/b", "envs/prod/c"),
		want: []map[string]any{
			{"env": "dev", "path": map[string]any{"path": "envs/dev/a", "basename": "a", "basenameNormalized": "a", "segments": []string{"envs", "dev", "a"}}},
			{"env": "prod", "path": map[string]any{"path": "envs/prod/b", "basename": "b", "basenameNormalized": "b", "segments": []string{"envs", "prod", "b"}}},
			{"env": "prod", "path": map[string]any{"path": "envs/prod/c", "basename": "c", "basenameNormalized": "c", "segments": []string{"envs", "prod", "c"}}},
		},
	},
	{
		name:       "nested matrix",
		goTemplate: true,
		generator: `{matrix: {generators: [{list: {elements: [{a: "1"}]}},
				{matrix: {generators: [{list: {elements: [{b: "{{.a}}x"}]}}, {list: {elements: [{c: "3"}, {c: "4"}]}}]}}]}}`,
		want: []map[string]any{{"a": "1", "b": "1x", "c": "3"}, {"a": "1", "b": "1x", "c": "4"}},
	},
	{
		name: "a third level of nesting is not read by Argo CD",
		generator: `{matrix: {generators: [{list: {elements: [{a: "1"}]}},
				{matrix: {generators: [{list: {elements: [{b: "2"}]}}, {matrix: {generators: [{list: {elements: [{c: "3"}]}}, {list: {elements: [{d: "4"}]}}]}}]}}]}}`,
		wantErr: "third level",
	},
	{
		name:      "a child's selector applies to its parameter sets",
		generator: `{matrix: {generators: [{list: {elements: [{a: "1"}, {a: "2"}]}, selector: {matchLabels: {a: "2"}}}, {list: {elements: [{b: "1"}]}}]}}`,
		want:      []map[string]any{{"a": "2", "b": "1"}},
	},
	{
		name:      "an unsupported child: the product is the part that can be known",
		generator: `{matrix: {generators: [{list: {elements: [{a: "1"}]}}, {clusters: {}}]}}`,
		wantFind:  []string{CheckUnsupported},
	},
}

// Ported from merge_test.go TestMergeGenerate and TestParamSetsAreUniqueByMergeKeys.
func TestMergeGenerator(t *testing.T) {
	for _, c := range mergeCases {
		t.Run(c.name, c.run)
	}
}

var mergeCases = []genCase{
	{
		name:      "no generators",
		generator: `{merge: {generators: [], mergeKeys: [b]}}`,
		wantErr:   "found less than two generators, Merge requires two or more",
	},
	{
		name:      "one generator",
		generator: `{merge: {generators: [{list: {elements: [{a: "1_1", b: same, c: "1_3"}]}}], mergeKeys: [b]}}`,
		wantErr:   "found less than two generators, Merge requires two or more",
	},
	{
		name: "happy flow - generate paramSets",
		generator: `{merge: {mergeKeys: [b], generators: [
				{list: {elements: [{a: "1_1", b: same, c: "1_3"}]}},
				{list: {elements: [{a: "2_1", b: same}]}},
				{list: {elements: [{a: "3_1", b: different, c: "3_3"}]}}]}}`,
		want: []map[string]any{{"a": "2_1", "b": "same", "c": "1_3"}},
	},
	{
		name:      "merge keys absent - do not merge",
		generator: `{merge: {mergeKeys: [b], generators: [{list: {elements: [{a: a}]}}, {list: {elements: [{a: a}]}}]}}`,
		want:      []map[string]any{{"a": "a"}},
	},
	{
		name:      "merge key present in first set, absent in second - do not merge",
		generator: `{merge: {mergeKeys: [b], generators: [{list: {elements: [{a: a}]}}, {list: {elements: [{b: b}]}}]}}`,
		want:      []map[string]any{{"a": "a"}},
	},
	{
		name: "merge nested matrix with some lists",
		generator: `{merge: {mergeKeys: [a, b], generators: [
				{matrix: {generators: [{list: {elements: [{a: "1"}, {a: "2"}]}}, {list: {elements: [{b: "1"}, {b: "2"}]}}]}},
				{list: {elements: [{a: "1", b: "1", c: added}]}}]}}`,
		want: []map[string]any{{"a": "1", "b": "1", "c": "added"}, {"a": "1", "b": "2"}, {"a": "2", "b": "1"}, {"a": "2", "b": "2"}},
	},
	{
		name: "merge nested merge with some lists",
		generator: `{merge: {mergeKeys: [a, b], generators: [
				{merge: {mergeKeys: [a], generators: [
					{list: {elements: [{a: "1", b: "1"}, {a: "2", b: "2"}]}},
					{list: {elements: [{a: "1", b: "3", c: added}, {a: "3", b: "2"}]}}]}},
				{list: {elements: [{a: "1", b: "3", d: added}]}}]}}`,
		want: []map[string]any{{"a": "1", "b": "3", "c": "added", "d": "added"}, {"a": "2", "b": "2"}},
	},
	{
		name:      "no merge keys",
		generator: `{merge: {generators: [{list: {elements: [{a: a}]}}, {list: {elements: [{a: a}]}}]}}`,
		wantErr:   "no merge keys were specified",
	},
	{
		name:      "simple key, non-unique paramSets",
		generator: `{merge: {mergeKeys: [key], generators: [{list: {elements: [{key: a}, {key: a}]}}, {list: {elements: [{key: a}]}}]}}`,
		wantErr:   `Duplicate key was {"key":"a"}`,
	},
	{
		name:       "goTemplate: objects merge deeply, the later generator wins",
		goTemplate: true,
		generator: `{merge: {mergeKeys: [name], generators: [
				{list: {elements: [{name: a, cfg: {x: "1", z: "1"}}, {name: b}]}},
				{list: {elements: [{name: a, cfg: {z: "2"}}]}}]}}`,
		want: []map[string]any{{"name": "a", "cfg": map[string]any{"x": "1", "z": "2"}}, {"name": "b"}},
	},
	{
		name:      "an unsupported child: the merge yields nothing",
		generator: `{merge: {mergeKeys: [a], generators: [{list: {elements: [{a: "1"}]}}, {pullRequest: {}}]}}`,
		wantFind:  []string{CheckUnsupported, CheckUnsupported},
	},
}

// A later child of a merge only overrides: it may yield more sets than MaxApplications.
func TestMergeLargeOverrideChild(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 1500; i++ {
		fmt.Fprintf(&b, "{name: n%d, v: o%d},", i, i)
	}
	genCase{
		generator: `{merge: {mergeKeys: [name], generators: [{list: {elements: [{name: n7, v: base}]}}, {list: {elements: [` + b.String() + `]}}]}}`,
		want:      []map[string]any{{"name": "n7", "v": "o7"}},
	}.run(t)
}
