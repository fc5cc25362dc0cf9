import type { Client } from "@als/client";
import { MAPPING_FIELDS, MAPPING_TRANSFORMS, type MappingDefinition, type MappingField, type MappingTransform, TEXT_FIELDS } from "@als/contract";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { ErrorNote } from "./error-note.tsx";
import { useMember } from "./session.tsx";
import { isStaleRevision } from "./stale-revision.ts";

type Preview = Awaited<ReturnType<Client["projectDataSources"]["preview"]>>;
type MappingDocument = Awaited<ReturnType<Client["projectDataSources"]["getMapping"]>>;

/** What a stale revision (409) tells the operator: the draft was read again, and the step goes on from it. */
const STALE = "The mapping changed since this page read it (another tab or teammate): it was read again. Review it and save once more.";

/**
 * The mapping draft against the sample: a proposal generated from the sample, edited field by field
 * beside the preview of what it would import (ready, held, excluded), then saved and validated.
 */
export function MappingStep({ streamId, sampleId, onValidated }: { streamId: string; sampleId: string; onValidated(revision: number): void }) {
  const { client, session } = useMember();
  const scope = { project_id: session.projectId, stream_id: streamId };
  const mapping = useQuery({
    queryKey: ["mapping", session.projectId, streamId],
    queryFn: () => client.projectDataSources.getMapping(scope),
    refetchOnMount: "always",
  });
  // Kept here, not in the editor: the editor starts afresh from the revision read again, and the
  // notice of why must outlive it until a save at that revision succeeds.
  const [stale, setStale] = useState(false);
  const onConflict = (error: unknown) => {
    if (!isStaleRevision(error)) return;
    setStale(true);
    void mapping.refetch();
  };
  // The saved draft's indexed text pointers (/input/messages/0/content) rewritten to their content array.
  const upgrade = useMutation({
    mutationFn: (expected_revision: number) => client.projectDataSources.upgradeMappingText({ ...scope, expected_revision }),
    onSuccess: () => {
      setStale(false);
      return mapping.refetch();
    },
    onError: onConflict,
  });
  if (mapping.error) return <ErrorNote error={mapping.error} />;
  if (!mapping.data) return <p>Loading…</p>;
  // The editor starts afresh from each revision read: a re-read after a 409 replaces what was typed.
  return (
    <>
      {stale && (
        <p className="warning" role="alert">
          {STALE}
        </p>
      )}
      <MappingEditor
        key={mapping.data.revision}
        document={mapping.data}
        sampleId={sampleId}
        onReread={() => mapping.refetch()}
        onConflict={onConflict}
        onSaved={() => setStale(false)}
        onValidated={onValidated}
        streamId={streamId}
      />
      {mapping.data.draft !== null && (
        <div className="actions">
          <button type="button" disabled={upgrade.isPending} onClick={() => upgrade.mutate(mapping.data.revision)}>
            Rewrite the saved draft's indexed text pointers
          </button>
          {upgrade.data && (
            <output>
              {upgrade.data.revision === upgrade.variables
                ? "No indexed text pointer to rewrite: the saved draft is unchanged."
                : `Indexed text pointers rewritten to their content array: draft revision ${upgrade.data.revision}.`}
            </output>
          )}
          <ErrorNote error={isStaleRevision(upgrade.error) ? null : upgrade.error} />
        </div>
      )}
    </>
  );
}

function MappingEditor({
  document,
  sampleId,
  streamId,
  onReread,
  onConflict,
  onSaved,
  onValidated,
}: {
  document: MappingDocument;
  sampleId: string;
  streamId: string;
  onReread(): void;
  onConflict(error: unknown): void;
  onSaved(): void;
  onValidated(revision: number): void;
}) {
  const { client, session } = useMember();
  const scope = { project_id: session.projectId, stream_id: streamId };
  const [definition, setDefinition] = useState<MappingDefinition | null>(document.draft);
  const propose = useMutation({
    mutationFn: () => client.projectDataSources.initializeMapping({ ...scope, sample_id: sampleId, expected_revision: document.revision }),
    onSuccess: () => {
      onSaved();
      onReread();
    },
    onError: onConflict,
  });
  const preview = useMutation({
    mutationFn: () =>
      client.projectDataSources.preview({ ...scope, sample_id: sampleId, expected_revision: document.revision, ...(definition && { definition }) }),
    onError: onConflict,
  });
  const validate = useMutation({
    mutationFn: async () => {
      const saved = await client.projectDataSources.saveMapping({ ...scope, expected_revision: document.revision, definition: definition! });
      // Validation takes the digest of the evidence the saved draft was previewed against.
      const checked = await client.projectDataSources.preview({ ...scope, sample_id: sampleId, expected_revision: saved.revision });
      if (checked.blockers.length > 0) return { checked, validated: null };
      const validated = await client.projectDataSources.validateMapping({
        ...scope,
        sample_id: sampleId,
        expected_revision: saved.revision,
        sample_digest: checked.sample_digest,
      });
      return { checked, validated };
    },
    onSuccess: ({ validated }) => {
      onSaved();
      if (validated?.validated_revision) onValidated(validated.validated_revision);
    },
    onError: onConflict,
  });
  const shown = validate.data?.checked ?? preview.data;
  const applySuggestion = (field: MappingField, path: string, transform: MappingTransform | null) => {
    if (!definition) return;
    const [first, ...rest] = definition.rules;
    const fields = { ...first!.fields, [field]: { path, ...(transform && { transform }) } };
    setDefinition({ ...definition, rules: [{ ...first!, fields }, ...rest] });
  };
  return (
    <div className="mapping">
      <div className="mapping-editor">
        {definition === null ? (
          <div className="stack">
            <p>No mapping yet. The service proposes one from up to three masked records of the sample, sent to the configured model.</p>
            <div className="actions">
              <button type="button" className="primary" disabled={propose.isPending} onClick={() => propose.mutate()}>
                Propose a mapping from the sample
              </button>
              <button type="button" onClick={() => setDefinition({ version: 1, rules: [{ name: "chat", fields: {} }] })}>
                Write a mapping by hand
              </button>
            </div>
            {propose.isPending && <output>Asking the model for a proposal…</output>}
            <ErrorNote error={propose.error} />
          </div>
        ) : (
          <form
            className="stack"
            aria-label="Mapping"
            onSubmit={(event) => {
              event.preventDefault();
              preview.mutate();
            }}
          >
            <p className="muted">
              Draft revision {document.revision}
              {document.validated_revision === document.revision ? " (validated)" : ""}. Pointers are JSON pointers into a sampled record (/metadata/user_id).
            </p>
            {definition.rules.map((rule, index) => (
              <RuleFields
                key={rule.name}
                rule={rule}
                onChange={(next) => setDefinition({ ...definition, rules: definition.rules.map((each, at) => (at === index ? next : each)) })}
              />
            ))}
            <div className="actions">
              <button type="submit" disabled={preview.isPending}>
                Preview against the sample
              </button>
              <button type="button" className="primary" disabled={validate.isPending} onClick={() => validate.mutate()}>
                Save and validate
              </button>
            </div>
            <ErrorNote error={preview.error ?? validate.error} />
          </form>
        )}
        {definition !== null && shown && (
          <Suggestions streamId={streamId} sampleId={sampleId} revision={document.revision} sampleDigest={shown.sample_digest} onUse={applySuggestion} />
        )}
      </div>
      {shown && <PreviewView preview={shown} />}
    </div>
  );
}

/**
 * Pointer suggestions from the configured model, asked only with the member's consent: what leaves
 * the service is said first (field names and types, no dialogue). A suggestion is applied to the
 * first rule only when the member uses it, never automatically.
 */
function Suggestions({
  streamId,
  sampleId,
  revision,
  sampleDigest,
  onUse,
}: {
  streamId: string;
  sampleId: string;
  revision: number;
  sampleDigest: string;
  onUse(field: MappingField, path: string, transform: MappingTransform | null): void;
}) {
  const { client, session } = useMember();
  const scope = { project_id: session.projectId, stream_id: streamId };
  const model = useQuery({ queryKey: ["suggestion-model", session.projectId, streamId], queryFn: () => client.projectDataSources.suggestionModel(scope) });
  const [consent, setConsent] = useState(false);
  const suggest = useMutation({
    mutationFn: () =>
      client.projectDataSources.suggest({ ...scope, sample_id: sampleId, expected_revision: revision, sample_digest: sampleDigest, consent: true }),
  });
  if (!model.data?.available) return null;
  return (
    <section aria-labelledby="suggestions-title">
      <h3 id="suggestions-title">Suggestions</h3>
      <label className="inline">
        <input type="checkbox" checked={consent} onChange={(event) => setConsent(event.target.checked)} />
        Send {model.data.data_sent} to {model.data.model}
      </label>
      <button type="button" disabled={!consent || suggest.isPending} onClick={() => suggest.mutate()}>
        Suggest pointers
      </button>
      <ErrorNote error={suggest.error} />
      {suggest.data && (
        <ul className="plain">
          {suggest.data.candidates.map((candidate) => (
            <li key={`${candidate.field}\u0000${candidate.path}`}>
              {candidate.field}: <code>{candidate.path}</code>
              {candidate.transform ? ` (${candidate.transform.replaceAll("_", " ")})` : ""} — {candidate.reason}{" "}
              <button type="button" onClick={() => onUse(candidate.field, candidate.path, candidate.transform)}>
                Use for {candidate.field}
              </button>
            </li>
          ))}
          {suggest.data.missing.length > 0 && <li className="muted">No suggestion for: {suggest.data.missing.join(", ")}</li>}
        </ul>
      )}
    </section>
  );
}

type Rule = MappingDefinition["rules"][number];

/** One rule's fields: a pointer each, and for the dialogue text the transform that picks text out of content blocks. */
function RuleFields({ rule, onChange }: { rule: Rule; onChange(rule: Rule): void }) {
  const setField = (field: MappingField, change: { path?: string; transform?: string }) => {
    const current = rule.fields[field];
    const path = change.path ?? current?.path ?? "";
    const transform = (change.transform ?? current?.transform ?? "") as MappingTransform | "";
    const fields = { ...rule.fields };
    if (path === "") delete fields[field];
    else fields[field] = { ...(current?.scope && { scope: current.scope }), path, ...(transform && { transform }) };
    onChange({ ...rule, fields });
  };
  return (
    <fieldset>
      <legend>Rule {rule.name}</legend>
      <div className="mapping-fields">
        {MAPPING_FIELDS.map((field) => (
          <div key={field} className="mapping-field">
            <label>
              {field} pointer
              <input value={rule.fields[field]?.path ?? ""} onChange={(event) => setField(field, { path: event.target.value })} />
            </label>
            {TEXT_FIELDS.includes(field) && (
              <label>
                {field} transform
                <select value={rule.fields[field]?.transform ?? ""} onChange={(event) => setField(field, { transform: event.target.value })}>
                  <option value="">none</option>
                  {MAPPING_TRANSFORMS.map((transform) => (
                    <option key={transform} value={transform}>
                      {transform.replaceAll("_", " ")}
                    </option>
                  ))}
                </select>
              </label>
            )}
          </div>
        ))}
      </div>
    </fieldset>
  );
}

/** What the mapping would make of the sample: counts, blockers, rule coverage, field guidance and each record. Nothing is published. */
function PreviewView({ preview }: { preview: Preview }) {
  return (
    <section className="preview" aria-labelledby="preview-title">
      <h3 id="preview-title">Preview of the sample</h3>
      <output>
        {preview.ready} ready, {preview.held} held, {preview.excluded} excluded of {preview.sourceRecords} sampled records ({preview.messages} message units
        ready). Nothing is published by a preview.
      </output>
      {preview.blockers.length > 0 && (
        <div className="warning">
          <p>Validation would refuse this mapping:</p>
          <ul>
            {preview.blockers.map((blocker) => (
              <li key={blocker}>{blocker}</li>
            ))}
          </ul>
        </div>
      )}
      <table>
        <caption className="muted">Rule coverage</caption>
        <thead>
          <tr>
            <th scope="col">Rule</th>
            <th scope="col">Matched</th>
            <th scope="col">Ready</th>
            <th scope="col">Held</th>
          </tr>
        </thead>
        <tbody>
          {Object.entries(preview.rule_coverage).map(([rule, coverage]) => (
            <tr key={rule}>
              <td>{rule}</td>
              <td>{coverage.matched}</td>
              <td>{coverage.ready}</td>
              <td>{coverage.held}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <details>
        <summary>Field guidance</summary>
        <dl className="playbook">
          {Object.entries(preview.field_guidance).map(([field, guidance]) => (
            <div key={field} className="contents">
              <dt>{field}</dt>
              <dd>{guidance}</dd>
            </div>
          ))}
        </dl>
      </details>
      <ul className="plain preview-records">
        {preview.records.map((record) => (
          <li key={record.trace_id}>
            <span className={`badge ${record.status === "ready" ? "done" : record.status === "held" ? "pending" : "not_tracked"}`}>{record.status}</span>{" "}
            <code>{record.trace_id}</code>
            {record.interaction && (
              <span>
                {" "}
                user {record.interaction.user_id}: “{record.interaction.input ?? ""}” → “{record.interaction.output ?? ""}”
              </span>
            )}
            {record.reasons.length > 0 && <span className="muted"> ({record.reasons.join(", ")})</span>}
          </li>
        ))}
      </ul>
    </section>
  );
}
