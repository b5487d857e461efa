package appset

import (
	"sort"
	"strings"
	"testing"
)

func dirsRepo(dirs ...string) memRepo { return newRepo(map[string]string{}, dirs...) }

// Ported from git_test.go TestGitGenerateParamsFromDirectories (legacy) and its goTemplate twin.
func TestGitDirectories(t *testing.T) {
	for _, c := range gitDirectoryCases {
		t.Run(c.name, c.run)
	}
}

func gitDirsGen(dirs string, extra string) string {
	return `{git: {repoURL: RepoURL, revision: HEAD, directories: ` + dirs + extra + `}}`
}

var gitDirectoryCases = []genCase{
	{
		name:      "happy flow - created apps",
		generator: gitDirsGen(`[{path: "*"}]`, ""),
		repo:      dirsRepo("app1", "app2", "app_3", "p1", "p1/app4"),
		want: []map[string]any{
			{"path": "app1", "path.basename": "app1", "path.basenameNormalized": "app1", "path[0]": "app1"},
			{"path": "app2", "path.basename": "app2", "path.basenameNormalized": "app2", "path[0]": "app2"},
			{"path": "app_3", "path.basename": "app_3", "path.basenameNormalized": "app-3", "path[0]": "app_3"},
			{"path": "p1", "path.basename": "p1", "path.basenameNormalized": "p1", "path[0]": "p1"},
		},
	},
	{
		name:      "It prefixes path parameters with PathParamPrefix",
		generator: gitDirsGen(`[{path: "*"}]`, ", pathParamPrefix: myRepo"),
		repo:      dirsRepo("app1", "app_3"),
		want: []map[string]any{
			{"myRepo.path": "app1", "myRepo.path.basename": "app1", "myRepo.path.basenameNormalized": "app1", "myRepo.path[0]": "app1"},
			{"myRepo.path": "app_3", "myRepo.path.basename": "app_3", "myRepo.path.basenameNormalized": "app-3", "myRepo.path[0]": "app_3"},
		},
	},
	{
		name:      "It filters application according to the paths",
		generator: gitDirsGen(`[{path: "p1/*"}, {path: "p1/*/*"}]`, ""),
		repo:      dirsRepo("app1", "p1", "p1/app2", "p1/p2", "p1/p2/app3", "p1/p2/p3", "p1/p2/p3/app4"),
		want: []map[string]any{
			{"path": "p1/app2", "path.basename": "app2", "path[0]": "p1", "path[1]": "app2", "path.basenameNormalized": "app2"},
			{"path": "p1/p2", "path.basename": "p2", "path[0]": "p1", "path[1]": "p2", "path.basenameNormalized": "p2"},
			{"path": "p1/p2/app3", "path.basename": "app3", "path[0]": "p1", "path[1]": "p2", "path[2]": "app3", "path.basenameNormalized": "app3"},
			{"path": "p1/p2/p3", "path.basename": "p3", "path[0]": "p1", "path[1]": "p2", "path[2]": "p3", "path.basenameNormalized": "p3"},
		},
	},
	{
		name:      "It filters application according to the paths with Exclude",
		generator: gitDirsGen(`[{path: "p1/*", exclude: true}, {path: "*"}, {path: "*/*"}]`, ""),
		repo:      dirsRepo("app1", "app2", "p1/app2", "p1/app3", "p2/app3"),
		want: []map[string]any{
			{"path": "app1", "path.basename": "app1", "path[0]": "app1", "path.basenameNormalized": "app1"},
			{"path": "app2", "path.basename": "app2", "path[0]": "app2", "path.basenameNormalized": "app2"},
			{"path": "p1", "path.basename": "p1", "path[0]": "p1", "path.basenameNormalized": "p1"},
			{"path": "p2", "path.basename": "p2", "path[0]": "p2", "path.basenameNormalized": "p2"},
			{"path": "p2/app3", "path.basename": "app3", "path[0]": "p2", "path[1]": "app3", "path.basenameNormalized": "app3"},
		},
	},
	{
		name:      "Expecting same exclude behavior with different order",
		generator: gitDirsGen(`[{path: "*"}, {path: "*/*"}, {path: "p1/*", exclude: true}]`, ""),
		repo:      dirsRepo("app1", "p1/app2", "p2/app3"),
		want: []map[string]any{
			{"path": "app1", "path.basename": "app1", "path[0]": "app1", "path.basenameNormalized": "app1"},
			{"path": "p1", "path.basename": "p1", "path[0]": "p1", "path.basenameNormalized": "p1"},
			{"path": "p2", "path.basename": "p2", "path[0]": "p2", "path.basenameNormalized": "p2"},
			{"path": "p2/app3", "path.basename": "app3", "path[0]": "p2", "path[1]": "app3", "path.basenameNormalized": "app3"},
		},
	},
	{
		name:      "Value variable interpolation",
		generator: gitDirsGen(`[{path: "*"}, {path: "*/*"}]`, `, values: {foo: bar, aaa: "{{ path[0] }}", no-op: "{{ this-does-not-exist }}"}`),
		repo:      dirsRepo("app1", "p1/app2"),
		want: []map[string]any{
			{"values.foo": "bar", "values.no-op": "{{ this-does-not-exist }}", "values.aaa": "app1", "path": "app1", "path.basename": "app1", "path[0]": "app1", "path.basenameNormalized": "app1"},
			{"values.foo": "bar", "values.no-op": "{{ this-does-not-exist }}", "values.aaa": "p1", "path": "p1", "path.basename": "p1", "path[0]": "p1", "path.basenameNormalized": "p1"},
			{"values.foo": "bar", "values.no-op": "{{ this-does-not-exist }}", "values.aaa": "p1", "path": "p1/app2", "path.basename": "app2", "path[0]": "p1", "path[1]": "app2", "path.basenameNormalized": "app2"},
		},
	},
	{
		name:      "handles empty response from repo server",
		generator: gitDirsGen(`[{path: "*"}]`, ""),
		repo:      dirsRepo(),
	},
	{
		name:      "hidden directories and what is below them are skipped",
		generator: gitDirsGen(`[{path: "*"}, {path: "*/*"}]`, ""),
		repo:      dirsRepo(".git", ".github", ".github/workflows", "a"),
		want:      []map[string]any{{"path": "a", "path.basename": "a", "path[0]": "a", "path.basenameNormalized": "a"}},
	},
	{
		name:       "happy flow - created apps (goTemplate)",
		goTemplate: true,
		generator:  gitDirsGen(`[{path: "*"}]`, ""),
		repo:       dirsRepo("app_3", "p1/app4"),
		want: []map[string]any{
			{"path": map[string]any{"path": "app_3", "basename": "app_3", "basenameNormalized": "app-3", "segments": []string{"app_3"}}},
			{"path": map[string]any{"path": "p1", "basename": "p1", "basenameNormalized": "p1", "segments": []string{"p1"}}},
		},
	},
	{
		name:       "It prefixes path parameters with PathParamPrefix (goTemplate), with values",
		goTemplate: true,
		generator:  gitDirsGen(`[{path: "*/*"}]`, `, pathParamPrefix: myRepo, values: {v: "{{ .myRepo.path.basename }}"}`),
		repo:       dirsRepo("p1/app4"),
		want: []map[string]any{{
			"myRepo": map[string]any{"path": map[string]any{"path": "p1/app4", "basename": "app4", "basenameNormalized": "app4", "segments": []string{"p1", "app4"}}},
			"values": map[string]any{"v": "app4"},
		}},
	},
	{
		name:      "another repository yields nothing",
		generator: `{git: {repoURL: "https://github.com/other/repo.git", directories: [{path: "*"}]}}`,
		repo:      dirsRepo("a"),
		wantFind:  []string{CheckOtherRepo},
	},
	{
		name:      "a revision other than HEAD is noted",
		generator: `{git: {repoURL: RepoURL, revision: main, directories: [{path: "*"}]}}`,
		repo:      dirsRepo("a"),
		want:      []map[string]any{{"path": "a", "path.basename": "a", "path[0]": "a", "path.basenameNormalized": "a"}},
		wantFind:  []string{CheckOtherRepo},
	},
	{
		name:      "neither directories nor files",
		generator: `{git: {repoURL: RepoURL}}`,
		wantErr:   "ApplicationSet is empty",
	},
}

const clusterProduction = `{
   "cluster": {
       "owner": "john.doe@example.com",
       "name": "production",
       "address": "https://kubernetes.default.svc"
   },
   "key1": "val1",
   "key2": {
       "key2_1": "val2_1",
       "key2_2": {
           "key2_2_1": "val2_2_1"
       }
   },
   "key3": 123
}`

const clusterStaging = `{
   "cluster": {
       "owner": "foo.bar@example.com",
       "name": "staging",
       "address": "https://kubernetes.default.svc"
   }
}`

// Ported from git_test.go TestGitGenerateParamsFromFiles.
func TestGitFiles(t *testing.T) {
	for _, c := range gitFileCases {
		t.Run(c.name, c.run)
	}
}

func gitFilesGen(extra string) string {
	return `{git: {repoURL: RepoURL, revision: HEAD, files: [{path: "**/config.json"}]` + extra + `}}`
}

var (
	filesProduction = map[string]any{
		"cluster.owner": "john.doe@example.com", "cluster.name": "production", "cluster.address": "https://kubernetes.default.svc",
		"key1": "val1", "key2.key2_1": "val2_1", "key2.key2_2.key2_2_1": "val2_2_1", "key3": "123",
		"path": "cluster-config/production", "path.basename": "production", "path[0]": "cluster-config", "path[1]": "production",
		"path.basenameNormalized": "production", "path.filename": "config.json", "path.filenameNormalized": "config.json",
	}
	filesStaging = map[string]any{
		"cluster.owner": "foo.bar@example.com", "cluster.name": "staging", "cluster.address": "https://kubernetes.default.svc",
		"path": "cluster-config/staging", "path.basename": "staging", "path[0]": "cluster-config", "path[1]": "staging",
		"path.basenameNormalized": "staging", "path.filename": "config.json", "path.filenameNormalized": "config.json",
	}
	filesBoth = newRepo(map[string]string{
		"cluster-config/production/config.json": clusterProduction,
		"cluster-config/staging/config.json":    clusterStaging,
		"cluster-config/README.md":              "not matched",
	})
	filesYAMLList = "\n- cluster:\n    owner: john.doe@example.com\n    name: production\n    address: https://kubernetes.default.svc\n    inner:\n      one: two\n" +
		"- cluster:\n    owner: john.doe@example.com\n    name: staging\n    address: https://kubernetes.default.svc"
	filesProdDir = map[string]any{"path": "cluster-config/production", "path.basename": "production", "path[0]": "cluster-config",
		"path[1]": "production", "path.basenameNormalized": "production", "path.filename": "config.yaml", "path.filenameNormalized": "config.yaml"}
)

// with returns a copy of m with more string entries.
func with(m map[string]any, kv ...string) map[string]any {
	out := copyMap(m)
	for i := 0; i < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

var gitFileCases = []genCase{
	{name: "happy flow: create params from git files", generator: gitFilesGen(""), repo: filesBoth, want: []map[string]any{filesProduction, filesStaging}},
	{
		name:      "Value variable interpolation",
		generator: gitFilesGen(`, values: {aaa: "{{ cluster.owner }}", no-op: "{{ this-does-not-exist }}"}`),
		repo:      filesBoth,
		want: []map[string]any{
			with(filesProduction, "values.aaa", "john.doe@example.com", "values.no-op", "{{ this-does-not-exist }}"),
			with(filesStaging, "values.aaa", "foo.bar@example.com", "values.no-op", "{{ this-does-not-exist }}"),
		},
	},
	{
		name:      "test invalid JSON file returns error",
		generator: gitFilesGen(""),
		repo:      newRepo(map[string]string{"cluster-config/production/config.json": "invalid json file"}),
		wantErr:   "unable to process file 'cluster-config/production/config.json'",
	},
	{
		name:      "test YAML array",
		generator: `{git: {repoURL: RepoURL, files: [{path: "**/config.yaml"}]}}`,
		repo:      newRepo(map[string]string{"cluster-config/production/config.yaml": filesYAMLList}),
		want: []map[string]any{
			with(filesProdDir, "cluster.owner", "john.doe@example.com", "cluster.name", "production", "cluster.address", "https://kubernetes.default.svc", "cluster.inner.one", "two"),
			with(filesProdDir, "cluster.owner", "john.doe@example.com", "cluster.name", "staging", "cluster.address", "https://kubernetes.default.svc"),
		},
	},
	{
		name:      "test empty YAML array",
		generator: `{git: {repoURL: RepoURL, files: [{path: "**/config.yaml"}]}}`,
		repo:      newRepo(map[string]string{"cluster-config/production/config.yaml": "[]"}),
	},
	{
		name:      "exclude wins over include, whatever the order",
		generator: `{git: {repoURL: RepoURL, files: [{path: "cluster-config/production/config.json", exclude: true}, {path: "**/config.json"}]}}`,
		repo:      filesBoth,
		want:      []map[string]any{filesStaging},
	},
	{
		name:       "file parameters are added to params with go template",
		goTemplate: true,
		generator:  `{git: {repoURL: RepoURL, files: [{path: "path/dir/file_name.yaml"}], values: {somekey: "{{.path.basename}}"}}}`,
		repo:       newRepo(map[string]string{"path/dir/file_name.yaml": "foo:\n  bar: baz\n"}),
		want: []map[string]any{{
			"values": map[string]any{"somekey": "dir"},
			"foo":    map[string]any{"bar": "baz"},
			"path": map[string]any{"path": "path/dir", "basename": "dir", "filename": "file_name.yaml",
				"basenameNormalized": "dir", "filenameNormalized": "file-name.yaml", "segments": []string{"path", "dir"}},
		}},
	},
	{
		name:      "empty file returns path parameters",
		generator: `{git: {repoURL: RepoURL, files: [{path: "path/dir/file_name.yaml"}]}}`,
		repo:      newRepo(map[string]string{"path/dir/file_name.yaml": ""}),
		want: []map[string]any{{"path": "path/dir", "path.basename": "dir", "path.filename": "file_name.yaml",
			"path.basenameNormalized": "dir", "path.filenameNormalized": "file-name.yaml", "path[0]": "path", "path[1]": "dir"}},
	},
	{
		name:       "path parameter are prefixed with go template",
		goTemplate: true,
		generator:  `{git: {repoURL: RepoURL, files: [{path: "path/dir/file_name.yaml"}], pathParamPrefix: myRepo}}`,
		repo:       newRepo(map[string]string{"path/dir/file_name.yaml": "foo:\n  bar: baz\n"}),
		want: []map[string]any{{
			"foo": map[string]any{"bar": "baz"},
			"myRepo": map[string]any{"path": map[string]any{"path": "path/dir", "basename": "dir", "filename": "file_name.yaml",
				"basenameNormalized": "dir", "filenameNormalized": "file-name.yaml", "segments": []string{"path", "dir"}}},
		}},
	},
}

// Ported from util/git/git_test.go TestLsFilesForGitFileGeneratorGlobbingPatterns: the repo server's old
// (git ls-files) and new (doublestar) globbing.
func TestGitFileGlobbing(t *testing.T) {
	files := []string{
		"cluster-charts/cluster1/mychart/charts/mysubchart/values.yaml",
		"cluster-charts/cluster1/mychart/values.yaml",
		"cluster-charts/cluster1/myotherchart/values.yaml",
		"cluster-charts/cluster2/values.yaml",
		"some-path/values.yaml",
		"some-path/staging/values.yaml",
		"cluster-config/engineering/production/config.json",
		"cluster-config/engineering/dev/config.json",
		"p1/p2/config.json",
		"p1/app2/config.json",
		"p1/app3/config.json",
		"p1/config.json",
	}
	for _, c := range []struct {
		pattern  string
		newGlob  bool
		expected []string
	}{
		{"**/config.json", true, []string{"cluster-config/engineering/production/config.json", "cluster-config/engineering/dev/config.json", "p1/config.json", "p1/p2/config.json", "p1/app2/config.json", "p1/app3/config.json"}},
		{"**/config.json", false, []string{"cluster-config/engineering/production/config.json", "cluster-config/engineering/dev/config.json", "p1/config.json", "p1/p2/config.json", "p1/app2/config.json", "p1/app3/config.json"}},
		{"some-path/*.yaml", true, []string{"some-path/values.yaml"}},
		{"some-path/*.yaml", false, []string{"some-path/values.yaml", "some-path/staging/values.yaml"}},
		{"p1/**/config.json", true, []string{"p1/config.json", "p1/p2/config.json", "p1/app2/config.json", "p1/app3/config.json"}},
		{"p1/**/config.json", false, []string{"p1/p2/config.json", "p1/app2/config.json", "p1/app3/config.json"}},
		{"cluster-config/**/config.json", true, []string{"cluster-config/engineering/production/config.json", "cluster-config/engineering/dev/config.json"}},
		{"cluster-config/**/config.json", false, []string{"cluster-config/engineering/dev/config.json", "cluster-config/engineering/production/config.json"}},
		{"cluster-config/*/dev/config.json", true, []string{"cluster-config/engineering/dev/config.json"}},
		{"cluster-config/*/dev/config.json", false, []string{"cluster-config/engineering/dev/config.json"}},
		{"cluster-charts/*/*/values.yaml", true, []string{"cluster-charts/cluster1/mychart/values.yaml", "cluster-charts/cluster1/myotherchart/values.yaml"}},
		{"cluster-charts/*/*/values.yaml", false, []string{"cluster-charts/cluster1/mychart/values.yaml", "cluster-charts/cluster1/myotherchart/values.yaml", "cluster-charts/cluster1/mychart/charts/mysubchart/values.yaml"}},
		{"cluster-charts/*/values.yaml", true, []string{"cluster-charts/cluster2/values.yaml"}},
		{"cluster-charts/*/values.yaml", false, []string{"cluster-charts/cluster2/values.yaml", "cluster-charts/cluster1/mychart/values.yaml", "cluster-charts/cluster1/myotherchart/values.yaml", "cluster-charts/cluster1/mychart/charts/mysubchart/values.yaml"}},
		// Pathspecs without wildcards name a file or a leading directory.
		{"some-path", false, []string{"some-path/values.yaml", "some-path/staging/values.yaml"}},
		{"some-path/", false, []string{"some-path/values.yaml", "some-path/staging/values.yaml"}},
		{"some-pat", false, nil},
		{"p1/config.json", false, []string{"p1/config.json"}},
		{"p1/app[23]/config.json", false, []string{"p1/app2/config.json", "p1/app3/config.json"}},
		{"p1/app[!2]/config.json", false, []string{"p1/app3/config.json"}},
		{"p1/app?/config.json", false, []string{"p1/app2/config.json", "p1/app3/config.json"}},
	} {
		e := &expander{opts: Options{NewGitFileGlobbing: c.newGlob}}
		var got []string
		for _, f := range files {
			if e.fileMatch(c.pattern, f) {
				got = append(got, f)
			}
		}
		sort.Strings(got)
		sort.Strings(c.expected)
		if strings.Join(got, "\n") != strings.Join(c.expected, "\n") {
			t.Errorf("%s (new globbing %v):\n got %v\nwant %v", c.pattern, c.newGlob, got, c.expected)
		}
	}
}
