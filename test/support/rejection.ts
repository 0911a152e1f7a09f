/**
 * What `promise` rejected with, for assertions on errors that are not thrown synchronously.
 *
 * @throws {Error} "expected a rejection" when the promise fulfills.
 */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error("expected a rejection");
}
