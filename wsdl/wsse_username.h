// The part of WS-Security 1.0 (OASIS wss-wssecurity-secext-1.0) that Lather reads: the
// wsse:Security SOAP header with a UsernameToken (Username, Password and its Type), for soapcpp2.
// Imported from typemap.dat. gSOAP's own import/wsse.h declares the whole standard (signatures,
// encryption, SAML), which would add thousands of generated lines for elements we never read;
// these declarations match its names, so either can be used. Unknown children (Nonce, Created,
// wsu:Timestamp) are skipped by the service's fignore. The header struct is "mutable": soapcpp2
// merges its members with other imports' (e.g. WS-Addressing's), so each adds only its own.

//gsoap wsse  schema import:	http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd
//gsoap wsse  schema elementForm:	qualified
//gsoap wsse  schema attributeForm:	unqualified

/// wsse:Password: the password (or its digest) and its Type URI (#PasswordText when absent).
typedef struct _wsse__Password
{	char*	__item;
	@char*	Type;
} _wsse__Password;

/// wsse:UsernameToken (WSS UsernameToken Profile 1.0, section 4.1).
typedef struct _wsse__UsernameToken
{	char*			Username;
	struct _wsse__Password*	Password;
} _wsse__UsernameToken;

/// wsse:Security; its SOAP-ENV attributes are kept to tell whom the block is for.
typedef struct _wsse__Security
{	struct _wsse__UsernameToken*	UsernameToken;
	@char*	SOAP_ENV__mustUnderstand;
	@char*	SOAP_ENV__actor;
	@char*	SOAP_ENV__role;
} _wsse__Security;

mutable struct SOAP_ENV__Header
{
  mustUnderstand _wsse__Security *wsse__Security 0;
};
