/** Streams rows as one JSON document `{"<member>":[...]}` without holding them all. */
export async function* jsonArrayChunks<Row>(member: string, batches: AsyncIterable<readonly Row[]>): AsyncGenerator<string> {
  yield `{${JSON.stringify(member)}:[`;
  let first = true;
  for await (const batch of batches) {
    if (batch.length === 0) continue;
    let chunk = '';
    for (const row of batch) {
      chunk += (first ? '' : ',') + JSON.stringify(row);
      first = false;
    }
    yield chunk;
  }
  yield ']}';
}
