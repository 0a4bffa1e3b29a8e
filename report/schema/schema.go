// Package schema holds the JSON Schemas (draft 2020-12) of dbbench's machine-readable outputs, one
// file per format and version, published in this directory: report.v1, v2 and v3 .schema.json for
// the reports `dbbench run` writes (version 2 since runs became the unit of evidence, 3 since a
// load-model result counts its errors apart; readers accept all), compare.v2.schema.json for
// `dbbench compare --format json` (compare.v1 for its earlier outputs). They require the fields a
// reader needs and allow additions (fields are only ever added within a version). Validate checks a
// document against them with github.com/santhosh-tekuri/jsonschema/v6.
package schema

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed *.schema.json
var files embed.FS

// Kind names a schema.
type Kind string

const (
	Report  Kind = "report"
	Compare Kind = "compare"
)

// CompareVersion is the version of compare's JSON (its schema_version field).
const CompareVersion = 2

// File returns the file name of a kind's schema at a version: "report.v1.schema.json".
func File(k Kind, version int) string { return fmt.Sprintf("%s.v%d.schema.json", k, version) }

var (
	mu       sync.Mutex
	compiled = map[string]*jsonschema.Schema{}
)

// Load compiles a schema (once). The schemas reference nothing outside themselves.
func Load(k Kind, version int) (*jsonschema.Schema, error) {
	name := File(k, version)
	mu.Lock()
	defer mu.Unlock()
	if s, ok := compiled[name]; ok {
		return s, nil
	}
	b, err := files.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("no %s schema version %d", k, version)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(name, doc); err != nil {
		return nil, err
	}
	s, err := c.Compile(name)
	if err != nil {
		return nil, err
	}
	compiled[name] = s
	return s, nil
}

// Validate checks a JSON document against the schema of its kind, at the version its
// schema_version field names.
func Validate(k Kind, data []byte) error {
	var head struct {
		SchemaVersion *int `json:"schema_version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	if head.SchemaVersion == nil {
		return fmt.Errorf("no schema_version")
	}
	s, err := Load(k, *head.SchemaVersion)
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	return s.Validate(inst)
}
