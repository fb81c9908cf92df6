// A walk through the store in a browser takes far longer than one API call.
jest.setTimeout(180_000);
