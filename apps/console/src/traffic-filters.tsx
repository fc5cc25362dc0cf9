import type { Client } from "@als/client";
import { FILTER_OPS, MAX_FILTERS } from "@als/contract";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ConfirmAction } from "./confirm-action.tsx";
import { ErrorNote } from "./error-note.tsx";
import { useMember } from "./session.tsx";
import { isStaleRevision, type RevisionWrites } from "./stale-revision.ts";

type CollectionStatus = Awaited<ReturnType<Client["projectDataSources"]["status"]>>;
export type Filter = CollectionStatus["filters"][number];
type FilterOp = (typeof FILTER_OPS)[number];

const OP_WORDS: Record<FilterOp, string> = { eq: "equals", in: "is one of", exists: "exists" };

/** A filter as a sentence: what the collection reads. */
const describeFilter = (filter: Filter) =>
  filter.op === "exists" ? `${filter.path} exists` : `${filter.path} ${OP_WORDS[filter.op]} ${filter.values.map((value) => `“${value}”`).join(", ")}`;

/**
 * The traffic filters the collection reads with, and (where the provider allows editing them after
 * activation) their replacement for the pages read from now on, confirmed before it is saved. The
 * service checks each filter and names the field it refuses; a stale revision re-reads the status.
 */
export function TrafficFilters({ status, editable, paths, writes }: { status: CollectionStatus; editable: boolean; paths: string[]; writes: RevisionWrites }) {
  const { client, session } = useMember();
  const queries = useQueryClient();
  const [draft, setDraft] = useState<Filter[] | null>(null);
  const save = useMutation({
    mutationFn: (filters: Filter[]) =>
      client.projectDataSources.editTrafficFilters({
        project_id: session.projectId,
        stream_id: status.stream_id,
        stream_revision: status.stream_revision,
        lifecycle_revision: status.lifecycle_revision,
        filters: sentFilters(filters),
      }),
    onSuccess: (next) => {
      writes.onSaved();
      setDraft(null);
      queries.setQueryData(["collection", session.projectId, status.stream_id], next);
    },
    onError: writes.onError,
  });
  const heading = `filters-${status.stream_id}`;
  const listId = `filter-paths-${status.stream_id}`;
  return (
    <section aria-labelledby={heading}>
      <h3 id={heading}>Traffic filters</h3>
      {status.filters.length === 0 ? (
        <p>Every trace of the project is read (no filter).</p>
      ) : (
        <ul className="plain">
          {status.filters.map((filter) => (
            <li key={describeFilter(filter)}>{describeFilter(filter)}</li>
          ))}
        </ul>
      )}
      <p className="muted">Applied {status.filter_execution.replaceAll("_", " ")}.</p>
      {editable && draft === null && (
        <button type="button" onClick={() => setDraft(status.filters.map((filter) => ({ ...filter, values: [...filter.values] })))}>
          Edit the traffic filters
        </button>
      )}
      {draft !== null && (
        <fieldset className="stack">
          <legend>New traffic filters (all must match; none: every trace)</legend>
          <FilterRows filters={draft} onChange={setDraft} paths={paths} listId={listId} />
          <div className="actions">
            <ConfirmAction
              label="Save the traffic filters"
              confirmLabel={`Confirm: read live traffic with ${draft.length === 0 ? "no filter" : draft.length === 1 ? "1 filter" : `${draft.length} filters`} from now on`}
              pending={save.isPending}
              onConfirm={() => save.mutate(draft)}
            />
            <button
              type="button"
              onClick={() => {
                setDraft(null);
                save.reset();
              }}
            >
              Cancel
            </button>
          </div>
          <ErrorNote error={isStaleRevision(save.error) ? null : save.error} />
        </fieldset>
      )}
    </section>
  );
}

/** Filters as the service takes them: values are one a line in the editor, and blank lines are not values. */
export const sentFilters = (filters: Filter[]): Filter[] =>
  filters.map((filter) => ({ ...filter, values: filter.op === "exists" ? [] : filter.values.filter((value) => value !== "") }));

/** Filters edited row by row (field, condition, values), with the paths the service supports offered. */
export function FilterRows({ filters, onChange, paths, listId }: { filters: Filter[]; onChange(next: Filter[]): void; paths: string[]; listId: string }) {
  return (
    <>
      <datalist id={listId}>
        {paths.map((path) => (
          <option key={path} value={path} />
        ))}
      </datalist>
      {filters.map((filter, index) => (
        <FilterFields
          // Rows are edited in place and only removed: their position names them.
          // biome-ignore lint/suspicious/noArrayIndexKey: see above
          key={index}
          number={index + 1}
          filter={filter}
          listId={listId}
          onChange={(next) => onChange(filters.map((each, at) => (at === index ? next : each)))}
          onRemove={() => onChange(filters.filter((_, at) => at !== index))}
        />
      ))}
      <div className="actions">
        <button
          type="button"
          disabled={filters.length >= MAX_FILTERS}
          onClick={() => onChange([...filters, { path: paths[0] ?? "tags", op: "eq", values: [""] }])}
        >
          Add a filter
        </button>
      </div>
    </>
  );
}

function FilterFields({
  number,
  filter,
  listId,
  onChange,
  onRemove,
}: {
  number: number;
  filter: Filter;
  listId: string;
  onChange(next: Filter): void;
  onRemove(): void;
}) {
  return (
    <fieldset className="filters">
      <legend>Filter {number}</legend>
      <label>
        Field
        <input list={listId} value={filter.path} onChange={(event) => onChange({ ...filter, path: event.target.value })} />
      </label>
      <label>
        Condition
        <select value={filter.op} onChange={(event) => onChange({ ...filter, op: event.target.value as FilterOp })}>
          {FILTER_OPS.map((op) => (
            <option key={op} value={op}>
              {OP_WORDS[op]}
            </option>
          ))}
        </select>
      </label>
      {filter.op !== "exists" && (
        <label>
          Values (one a line)
          <textarea
            rows={Math.max(1, filter.values.length)}
            value={filter.values.join("\n")}
            onChange={(event) => onChange({ ...filter, values: event.target.value.split("\n") })}
          />
        </label>
      )}
      <button type="button" onClick={onRemove}>
        Remove filter {number}
      </button>
    </fieldset>
  );
}
