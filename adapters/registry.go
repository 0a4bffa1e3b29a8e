package adapters

import (
	"fmt"
	"maps"
	"slices"

	"github.com/dbbench/dbbench/workloads"
)

// Registry maps adapter names to adapters. It is built explicitly by the command (no package-level
// state), so tests can register fakes alongside the real adapters.
type Registry struct {
	byName map[string]Adapter
}

// NewRegistry returns a registry holding the given adapters. Duplicate names are an error.
func NewRegistry(list ...Adapter) (*Registry, error) {
	r := &Registry{byName: map[string]Adapter{}}
	for _, a := range list {
		if err := r.Register(a); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Register adds an adapter.
func (r *Registry) Register(a Adapter) error {
	name := a.Info().Name
	if name == "" {
		return fmt.Errorf("adapter with an empty name")
	}
	if _, dup := r.byName[name]; dup {
		return fmt.Errorf("adapter %q registered twice", name)
	}
	r.byName[name] = a
	return nil
}

// Lookup returns the adapter with the given name.
func (r *Registry) Lookup(name string) (Adapter, bool) {
	a, ok := r.byName[name]
	return a, ok
}

// Names returns the registered adapter names, sorted.
func (r *Registry) Names() []string {
	return slices.Sorted(maps.Keys(r.byName))
}

// Supports reports whether targets of the adapter run the named workload, and whether it is one of
// the adapter's own (custom) workloads. An adapter with ClientWorkloads accepts any custom name (its
// targets check them once started).
func Supports(info Info, workload string) (ok, custom bool) {
	if slices.Contains(workloads.Builtins, workload) {
		return slices.Contains(info.Builtin, workload), false
	}
	for _, w := range info.Workloads {
		if w.Name == workload {
			return true, true
		}
	}
	return info.ClientWorkloads, info.ClientWorkloads
}

// CustomSpec returns the spec of an adapter-specific workload.
func CustomSpec(info Info, workload string) (WorkloadSpec, bool) {
	for _, w := range info.Workloads {
		if w.Name == workload {
			return w, true
		}
	}
	return WorkloadSpec{}, false
}
