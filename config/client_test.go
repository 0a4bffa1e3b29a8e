package config

import (
	"context"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/adapters/memory"
	"github.com/dbbench/dbbench/workloads"
)

// clientAdapter stands in for exec: its targets declare their own workloads once started.
type clientAdapter struct{}

func (clientAdapter) Info() adapters.Info {
	return adapters.Info{Name: "client", Builtin: workloads.Builtins, ClientWorkloads: true}
}

func (clientAdapter) Open(context.Context, adapters.Options, adapters.Env) (adapters.Target, error) {
	return nil, nil
}

func TestClientDeclaredWorkloads(t *testing.T) {
	reg, err := adapters.NewRegistry(memory.New(), pagesAdapter{}, clientAdapter{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, yaml string
		want       string // error, or "" for a plan
		runs       map[string][]string
	}{
		{"any name, any params", `name: t
dataset: {persons: 100}
workloads: [scan, {name: range_read, ops: 5, params: {width: 10, mode: fast}}]
targets: [{name: m, adapter: memory}, {name: c, adapter: client}]
`, "", map[string][]string{"m": {"scan"}, "c": {"scan", "range_read"}}},
		{"another adapter's workload only when listed", `name: t
dataset: {persons: 100}
workloads: [scan, page_all]
targets: [{name: p, adapter: pages}, {name: c, adapter: client}, {name: d, adapter: client, workloads: [page_all]}]
`, "", map[string][]string{"p": {"scan", "page_all"}, "c": {"scan"}, "d": {"page_all"}}},
		{"unknown without a client target", `name: t
dataset: {persons: 100}
workloads: [range_read]
targets: [{name: m, adapter: memory}]
`, `unknown workload "range_read"`, nil},
		{"params must be plain", `name: t
dataset: {persons: 100}
workloads: [{name: range_read, params: {width: [1, 2]}}]
targets: [{name: c, adapter: client}]
`, `workload range_read on target c: key "width": want a plain value`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse("t.yaml", []byte(tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			p, err := c.Resolve(reg, false)
			if tt.want != "" {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("got %v, want %q", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, tp := range p.Targets {
				if got, want := strings.Join(tp.Workloads, ","), strings.Join(tt.runs[tp.Name], ","); got != want {
					t.Errorf("target %s runs %s, want %s", tp.Name, got, want)
				}
			}
			if tt.name == "any name, any params" && p.Targets[1].Params["range_read"].Values()["mode"] != "fast" {
				t.Errorf("params: %v", p.Targets[1].Params["range_read"].Values())
			}
		})
	}
}
