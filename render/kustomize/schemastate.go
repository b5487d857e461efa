package kustomize

import (
	"sync"

	"sigs.k8s.io/kustomize/kyaml/openapi"
)

// kustomize keeps its OpenAPI schema in package state (kyaml's openapi). A
// kustomization's openapi field replaces the schema for its build, and
// krusty never puts the built-in one back: every later build of the
// process, and any build running beside it, would patch with the custom
// schema (a strategic merge patch then replaces a Deployment's containers
// instead of merging them by name), and a custom schema parsed after the
// built-in one is merged into it. `kustomize build` and Argo CD's
// repo-server run one build per process, so every build here starts from
// the state a fresh process has: a build that may name a schema runs
// alone, from a reset schema, and resets it after itself; the others share
// the parsed built-in one.
var schemaState sync.RWMutex

// builtinSchemaVersion is what kyaml reports while no kustomization has
// named a schema.
var builtinSchemaVersion = openapi.GetSchemaVersion()

// withSchemaState runs build (one krusty run) under schemaState; custom:
// the build may name a schema (kustscan.Scan.MayNameSchema).
func withSchemaState(custom bool, build func()) {
	if custom {
		schemaState.Lock()
		defer schemaState.Unlock()
		openapi.ResetOpenAPI()
		defer openapi.ResetOpenAPI()
		build()
		return
	}
	schemaState.RLock()
	build()
	named := openapi.GetSchemaVersion() != builtinSchemaVersion
	schemaState.RUnlock()
	if named { // by a kustomization the scan did not see; never expected
		schemaState.Lock()
		if openapi.GetSchemaVersion() != builtinSchemaVersion {
			openapi.ResetOpenAPI()
		}
		schemaState.Unlock()
	}
}

// WarmSchema parses kustomize's built-in schema now, unless a build has:
// the first build that patches would otherwise parse it (tens of
// milliseconds) as it runs.
func WarmSchema() {
	schemaState.RLock()
	defer schemaState.RUnlock()
	if openapi.GetSchemaVersion() == builtinSchemaVersion {
		openapi.Schema()
	}
}
