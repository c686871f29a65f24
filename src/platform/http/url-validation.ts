/**
 * http(s) URLs in request bodies (widget destinations, webhook and callback URLs). validator's
 * isURL alone accepts some that the WHATWG URL parser, which the service uses to redirect and to
 * call out, refuses (`http://xn--a.com/`, `http://a\ufffdb.example/`): such a URL was stored and
 * then failed every redirect or delivery. Both must accept it.
 */
import { buildMessage, isURL, ValidateBy, type ValidationOptions } from 'class-validator';

export function IsHttpUrl(options: { disallowAuth?: boolean } = {}, validationOptions?: ValidationOptions): PropertyDecorator {
  const urlOptions = { require_protocol: true, protocols: ['http', 'https'], require_tld: false, disallow_auth: options.disallowAuth ?? false };
  return ValidateBy(
    {
      name: 'isUrl',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && isURL(value, urlOptions) && URL.canParse(value),
        defaultMessage: buildMessage((each) => `${each}$property must be an http or https URL`, validationOptions),
      },
    },
    validationOptions,
  );
}
