import { useState } from 'preact/hooks';
import { ApiRequestError, apiGet } from '../api/api-client.js';
import type { LookupResponse } from '../api/api-types.js';
import { withParams } from '../state/links.js';
import { navigate } from '../state/location.js';

const idPattern = /^(?:[0-9a-f]{16}|[0-9a-f]{32})$/i;

/** What the user pasted, as an id: surrounding spaces, quotes and a `traceparent`'s parts dropped. */
export function idFromPaste(text: string): string {
  const trimmed = text.trim().replace(/^["']|["']$/g, '');
  // A W3C traceparent (00-<trace>-<span>-01) names its trace.
  const traceparent = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/i.exec(trimmed);
  return traceparent ? traceparent[1]! : trimmed;
}

/**
 * The header's "Find a trace" box: a trace id opens its trace, a span id opens its trace with the
 * span selected; an id nothing stored has is said so under the box.
 */
export function FindTrace() {
  const [text, setText] = useState('');
  const [message, setMessage] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  async function find(event: Event) {
    event.preventDefault();
    const id = idFromPaste(text);
    if (!idPattern.test(id)) {
      setMessage('A trace id is 32 hexadecimal characters, a span id 16.');
      return;
    }
    setBusy(true);
    setMessage(undefined);
    try {
      const found = await apiGet<LookupResponse>(`/api/v1/lookup/${encodeURIComponent(id)}`);
      setText('');
      navigate(withParams(`/traces/${encodeURIComponent(found.traceId)}`, new URLSearchParams(), { span: found.spanId ?? undefined }));
    } catch (error) {
      setMessage(error instanceof ApiRequestError && error.status === 404 ? error.message : `The search failed: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="find-trace" role="search" aria-label="Find a trace" onSubmit={find}>
      <input
        class="input find-trace-input"
        name="id"
        aria-label="Trace or span id"
        placeholder="Find trace or span id"
        autocomplete="off"
        spellcheck={false}
        value={text}
        aria-invalid={message !== undefined}
        aria-describedby={message ? 'find-trace-message' : undefined}
        onInput={(event) => {
          setText(event.currentTarget.value);
          setMessage(undefined);
        }}
      />
      <button type="submit" class="button button-small" disabled={busy}>
        Find
      </button>
      {message ? (
        <p id="find-trace-message" class="find-trace-message" role="alert">
          {message}
        </p>
      ) : null}
    </form>
  );
}
